#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "reports/fit_table.h"

namespace gpubench {

// Renders a report for people: "table" (console, fitted to `columns`: fit_table.h),
// "markdown" (one table per workload), or "json" (the report itself). Throws UsageError for
// another format name.
std::string format_report(const nlohmann::json& report, const std::string& format,
                          std::size_t columns = kDefaultTerminalColumns);

std::string format_report_table(const nlohmann::json& report, std::size_t columns = kDefaultTerminalColumns);
std::string format_report_markdown(const nlohmann::json& report);

// Shared cell helpers for the printers.
std::string format_bytes(double bytes);
std::string format_rate(double samples_per_s);

// A string from a report (a reason, a path, an environment value) as markdown that shows
// it as text, on one line (io/printable.h's one_line): what markdown or HTML would read as
// markup (`|` ending a table cell, `<img src=...>`, `[text](url)`, emphasis, code, `#`, an
// entity, a bare URL turned into a link) is backslash-escaped, so a report cannot put an
// image, a link or a forged line into a CI summary.
std::string markdown_text(const std::string& text);

// `report` with every string in it on one line (one_line): what the table and markdown
// printers draw from, so no string of a report starts a line of their own.
nlohmann::json with_one_line_strings(const nlohmann::json& report);

}  // namespace gpubench
