#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reports/compare/compare_decision.h"
#include "reports/compare/compare_metric.h"
#include "reports/compare/report_loader.h"

// One config's metric values across the runs of each side, and the run-level comparison
// built on them (`gpubench compare BASE_DIR NEW_DIR`).
namespace gpubench {

// The result keys of a side (report_loader.h: the config ids, and a tune row's batch and
// step), in first-seen order over its runs.
std::vector<std::string> config_ids(const ReportSet& side);

// Run `run` of `side`'s result for `config_id` (null when the run has none): by its index
// when load_report_set made one, else by a scan (sets built by hand).
const nlohmann::json* find_result(const ReportSet& side, std::size_t run, const std::string& config_id);

// One config in each run of one side.
struct ConfigRuns {
  bool present = false;                     // in at least one run
  std::vector<std::vector<double>> values;  // per run; empty where the run has none
  std::vector<std::string> missing;         // per run: why it has none ("" where it has values), e.g.
                                            // "status failed: CUDA out of memory", "is not in this run"
  // The first run's result with values (null when none has): the workload checks look at
  // this one only, even when pairing leaves its run out.
  const nlohmann::json* first_result = nullptr;
};
ConfigRuns collect_config_runs(const ReportSet& side, const std::string& config_id, const CompareMetric& metric);

// One value per usable run of `side` (its median for per-step metrics; with `paired`, only
// runs whose pair in `other` has values too): what the run-level test compares. `used`
// says which runs those are.
std::vector<double> usable_run_values(const ConfigRuns& side, const ConfigRuns& other, bool paired,
                                      const CompareMetric& metric, std::vector<bool>& used);

// A config compared across several runs a side, or why it could not be.
struct RunLevelOutcome {
  std::optional<ConfigComparison> comparison;
  std::string not_compared;           // set when there is no comparison
  std::optional<std::string> warning;  // runs left out of a comparison that was made
};

// Each run reduced to one value (its median for per-step metrics), runs without values
// left out (with options.paired, a pair is left out when either run lacks values), then
// compare_runs. Fewer than 2 runs (pairs) left on a side: not compared, saying which runs
// lacked values and why.
RunLevelOutcome compare_config_runs(const std::string& config_id, const ReportSet& base_set, const ConfigRuns& base,
                                    const ReportSet& next_set, const ConfigRuns& next, const CompareMetric& metric,
                                    const CompareOptions& options);

}  // namespace gpubench
