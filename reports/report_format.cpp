#include "reports/report_format.h"

#include <fmt/format.h>

#include <string_view>

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

std::string markdown_text(const std::string& text) {
  const std::string line = one_line(text);
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    // Not '_': GitHub reads it as emphasis only around words, never inside one (timers_nvtx).
    const bool markup = std::string_view("\\`*[]<>|~!&#").find(c) != std::string_view::npos;
    // GitHub links a bare URL: "https://..." and "www." lose the form it looks for.
    const bool url = (c == ':' && line.compare(i, 3, "://") == 0) ||
                     (c == '.' && i >= 3 && line.compare(i - 3, 4, "www.") == 0);
    if (markup || url) out += '\\';
    out += c;
  }
  return out;
}

namespace {

void make_strings_one_line(nlohmann::json& value) {
  if (value.is_string()) value = one_line(value.get_ref<const std::string&>());
  else if (value.is_structured())
    for (auto& item : value.items()) make_strings_one_line(item.value());
}

}  // namespace

nlohmann::json with_one_line_strings(const nlohmann::json& report) {
  nlohmann::json out = report;
  make_strings_one_line(out);
  return out;
}

std::string format_report(const nlohmann::json& report, const std::string& format, std::size_t columns) {
  if (format == "json") return json_text(report, 2) + "\n";
  // Reasons quote OS and library messages, paths and environment values: shown escaped,
  // each on its line.
  if (format == "table") return printable(format_report_table(with_one_line_strings(report), columns));
  if (format == "markdown") return printable(format_report_markdown(with_one_line_strings(report)));
  throw UsageError("--format '" + format + "' is unknown: expected table, json or markdown");
}

}  // namespace gpubench
