#include "reports/report_format.h"

#include <fmt/format.h>

#include "core/config/errors.h"
#include "core/io/json_text.h"
#include "core/io/printable.h"

namespace gpubench {

std::string format_bytes(double bytes) {
  if (bytes <= 0) return "-";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", bytes, units[unit]);
}

std::string format_rate(double samples_per_s) {
  if (samples_per_s >= 10000) return fmt::format("{:.0f}", samples_per_s);
  if (samples_per_s >= 100) return fmt::format("{:.1f}", samples_per_s);
  return fmt::format("{:.2f}", samples_per_s);
}

std::string format_report(const nlohmann::json& report, const std::string& format, std::size_t columns) {
  if (format == "json") return json_text(report, 2) + "\n";
  // Reasons quote OS and library messages, paths and environment values: shown escaped.
  if (format == "table") return printable(format_report_table(report, columns));
  if (format == "markdown") return printable(format_report_markdown(report));
  throw UsageError("--format '" + format + "' is unknown: expected table, json or markdown");
}

}  // namespace gpubench
