#pragma once
// A folder of reports over time as the data of its page: per config and metric, one point
// per report (median with p10-p90, as compare summarises the values), in created_utc
// order, and the points compare would call a regression (or an improvement) marked.
//
// Each report is judged against the previous report that has values for the config (a
// report where it failed or was skipped is a gap, not a new baseline): what the CI job
// that runs `gpubench compare PREVIOUS NEW` after every merge decides, point by point, so
// a mark is a build that CI would have failed. A rolling baseline (several earlier
// reports against one) is not compare's rule: compare wants one run a side, or at least
// 2 a side, and a slow drift of small steps shows in the trend line, not as marks.
#include <nlohmann/json.hpp>
#include <string>

#include "reports/compare/compare_decision.h"

namespace gpubench {

// Every *.json directly in `folder` (as compare reads a folder of runs), loaded one at a
// time (report_header.h orders them first), so 500 reports of 60 configs fit in memory.
// Throws UsageError naming the folder when it is missing or holds no *.json, and naming
// the file when one is not a valid report (load_report). `options.metric` is ignored:
// every metric compare knows is drawn where the reports have values.
nlohmann::json history_page_data(const std::string& folder, const CompareOptions& options);

}  // namespace gpubench
