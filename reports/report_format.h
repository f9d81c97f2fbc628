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

}  // namespace gpubench
