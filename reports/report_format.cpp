#include "reports/report_format.h"

#include <fmt/format.h>

#include "config/errors.h"

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

std::string format_report(const nlohmann::json& report, const std::string& format) {
  if (format == "json") return report.dump(2) + "\n";
  if (format == "table") return format_report_table(report);
  if (format == "markdown") return format_report_markdown(report);
  throw UsageError("--format '" + format + "' is unknown: expected table, json or markdown");
}

}  // namespace gpubench
