#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/compare/compare_decision.h"
#include "reports/compare/compare_metric.h"
#include "reports/compare/report_loader.h"

// `gpubench compare BASE.json NEW.json`: which configs got slower, which faster, which
// did not change beyond noise. Typical use (exit codes: 0 no regression, 1 regression,
// 2 UsageError, 3 any other failure of compare itself):
//   const auto base = load_report(base_path, "BASE");
//   const auto next = load_report(next_path, "NEW");
//   const CompareResult result = compare_reports(base, base_path, next, next_path, options);
//   std::cout << format_compare(result, "table");
//   return result.regression ? 1 : 0;
// With several runs a side (directories of reports, load_report_set), compare_report_sets
// decides on run-level values instead (compare_runs), which is what a CI job on shared
// runners needs.
namespace gpubench {

// Where one side came from, for the output header.
struct ReportInfo {
  std::string name;          // the path given on the command line (a file or a directory of runs)
  std::string tool_version;  // tool.version of the first run, "" when absent
  std::string git_commit;    // tool.git_commit of the first run, "" when absent
  std::size_t runs = 1;      // reports on this side
};

// A config present on both sides that could not be compared (not ok on a side, no values).
struct NotCompared {
  std::string config_id;
  std::string reason;  // e.g. "NEW status failed: CUDA out of memory"
};

struct CompareResult {
  CompareOptions options;
  CompareMetric metric;
  ReportInfo base, next;
  std::vector<ConfigComparison> configs;  // in BASE's order
  std::vector<std::string> only_in_base;  // config ids
  std::vector<std::string> only_in_next;
  std::vector<NotCompared> not_compared;
  std::vector<std::string> warnings;  // environment / workload differences
  std::size_t regressions = 0, improvements = 0;
  // Regressions decided while a side was disturbed (counted in `regressions` too), and of
  // those the ones --on-disturbed ignore or retry leave out of the result.
  std::size_t disturbed_regressions = 0, uncounted_regressions = 0;
  bool regression = false;  // a config regressed and counts: exit code 1
  bool retry = false;       // --on-disturbed retry, and only disturbed configs regressed: exit code 5
  // The machine-readable form (what --format json prints; fits the report's comparisons[]):
  // {metric{name,unit,higher_is_better,kind}, threshold, alpha, confidence, paired, base{path,
  //  tool_version,git_commit,runs}, new{...}, configs[{config_id, verdict, decision, reason,
  //  median_change, shift, shift_ci[low,high], p_value, base{count,median,p10,p90,cv},
  //  new{...}}], only_in_base[], only_in_new[], not_compared[{config_id,reason}],
  //  warnings[], summary{compared,regressions,improvements,unchanged,not_compared,
  //  disturbed_regressions,uncounted_regressions}, on_disturbed, regression, retry}; each
  //  config also has disturbed[] (empty when both sides were quiet). Numbers that do not apply are null. With several runs a side, base/new
  //  count, median, p10, p90 and cv describe the run values (one per run).
  nlohmann::json json;
};

// Compares two reports (as from load_report; validated again here). `base_name` /
// `next_name` name the files in messages. Throws UsageError on a malformed report (naming
// BASE or NEW and the file), on bad options (unknown metric, threshold outside [0, 1),
// alpha outside (0, 0.5]), and when no config is ok with values on both sides.
CompareResult compare_reports(const nlohmann::json& base, const std::string& base_name, const nlohmann::json& next,
                              const std::string& next_name, const CompareOptions& options);

// Several runs a side (or one each, which is compare_reports). Both sides must have one
// run, or both at least 2 (a single BASE report cannot show how much runs differ);
// options.paired needs equal counts, at least 2. Throws UsageError otherwise, and as
// compare_reports does. Runs of a side from different commits or tool versions, and
// runs left out of a config's comparison, are warnings.
CompareResult compare_report_sets(const ReportSet& base, const ReportSet& next, const CompareOptions& options);

// --threshold: "5%" or "0.05" (a fraction) -> 0.05. Throws UsageError for anything not a
// finite number, negative, or >= 100% (so "5" is refused, with a hint to write "5%").
double parse_threshold(const std::string& text);

}  // namespace gpubench
