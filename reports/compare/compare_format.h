#pragma once
#include <cstddef>
#include <string>

#include "reports/compare/compare_reports.h"

namespace gpubench {

// Renders a comparison:
//  "table":    aligned console text;
//  "markdown": a GitHub-flavoured table plus lists, for a CI step summary;
//  "json":     result.json, indented.
// Each names the metric, threshold and alpha, shows per config both sides' median with
// their noise (p10-p90, cv) and sample counts, the change, its confidence interval, the
// p-value and the verdict; then configs on one side only, configs not compared, and
// environment warnings. Throws UsageError for another format name. The table fits
// `columns` (reports/fit_table.h: the sample counts, then the noise, the p-value and the
// interval give way; the config, its change and its verdict stay) and its prose wraps there.
std::string format_compare(const CompareResult& result, const std::string& format,
                           std::size_t columns = static_cast<std::size_t>(-1));

}  // namespace gpubench
