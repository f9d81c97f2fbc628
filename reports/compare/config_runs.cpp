#include "reports/compare/config_runs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>
#include <stdexcept>

#include "core/stats/summary.h"

namespace gpubench {
namespace {

using nlohmann::json;

std::string status_of(const json& result) {
  std::string text = "status " + result["status"].get<std::string>();
  if (result.contains("reason") && result["reason"].is_string() && !result["reason"].get<std::string>().empty())
    text += ": " + result["reason"].get<std::string>();
  return text;
}

double run_value(const std::vector<double>& values, const CompareMetric& metric) {
  return metric.kind == MetricKind::per_step ? percentile(values, 0.5) : values.front();
}

// "BASE run 'dir/run-02.json': status failed: ..." for each run left out.
std::vector<std::string> left_out(const std::string& role, const ReportSet& set, const ConfigRuns& runs,
                                  const std::vector<bool>& used) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < used.size(); ++i)
    if (!used[i])
      lines.push_back(fmt::format("{} run '{}': {}", role, set.run_names[i],
                                  runs.missing[i].empty() ? "its pair lacks values" : runs.missing[i]));
  return lines;
}

}  // namespace

const nlohmann::json* find_result(const ReportSet& side, std::size_t run, const std::string& config_id) {
  const nlohmann::json& results = side.runs[run]["results"];
  if (side.result_index.size() == side.runs.size()) {
    const auto& index = side.result_index[run];
    const auto found = index.find(config_id);
    return found == index.end() ? nullptr : &results[found->second];
  }
  for (const nlohmann::json& result : results)
    if (result_key(result) == config_id) return &result;
  return nullptr;
}

std::vector<double> usable_run_values(const ConfigRuns& side, const ConfigRuns& other, bool paired,
                                      const CompareMetric& metric, std::vector<bool>& used) {
  std::vector<double> values;
  used.assign(side.values.size(), false);
  for (std::size_t i = 0; i < side.values.size(); ++i) {
    used[i] = !side.values[i].empty() && (!paired || !other.values[i].empty());
    if (used[i]) values.push_back(run_value(side.values[i], metric));
  }
  return values;
}

std::vector<std::string> config_ids(const ReportSet& side) {
  std::vector<std::string> ids;
  std::set<std::string> seen;
  for (const json& run : side.runs)
    for (const json& result : run["results"]) {
      const std::string id = result_key(result);
      if (seen.insert(id).second) ids.push_back(id);
    }
  return ids;
}

ConfigRuns collect_config_runs(const ReportSet& side, const std::string& config_id, const CompareMetric& metric) {
  ConfigRuns out;
  for (std::size_t run = 0; run < side.runs.size(); ++run) {
    const json* result = find_result(side, run, config_id);
    std::vector<double> values;
    std::string missing;
    if (result == nullptr) {
      missing = "is not in this run";
    } else if ((*result)["status"] != "ok") {
      missing = status_of(*result);
    } else {
      MetricValues found = metric_values(*result, metric);
      values = std::move(found.values);
      if (values.empty()) missing = "has " + found.missing;
      if (!values.empty() && out.first_result == nullptr) out.first_result = result;
    }
    out.present = out.present || result != nullptr;
    out.values.push_back(std::move(values));
    out.missing.push_back(std::move(missing));
  }
  return out;
}

RunLevelOutcome compare_config_runs(const std::string& config_id, const ReportSet& base_set, const ConfigRuns& base,
                                    const ReportSet& next_set, const ConfigRuns& next, const CompareMetric& metric,
                                    const CompareOptions& options) {
  if (options.paired && base.values.size() != next.values.size())
    throw std::invalid_argument("compare_config_runs: paired sides need as many runs each");
  std::vector<bool> base_used, next_used;
  const std::vector<double> base_runs = usable_run_values(base, next, options.paired, metric, base_used);
  const std::vector<double> next_runs = usable_run_values(next, base, options.paired, metric, next_used);
  std::vector<std::string> dropped = left_out("BASE", base_set, base, base_used);
  for (std::string& line : left_out("NEW", next_set, next, next_used)) dropped.push_back(std::move(line));

  RunLevelOutcome outcome;
  if (base_runs.size() < 2 || next_runs.size() < 2) {
    outcome.not_compared =
        options.paired
            ? fmt::format("{} of {} run pairs have values on both sides, at least 2 are needed: {}", base_runs.size(),
                          base_used.size(), fmt::join(dropped, "; "))
            : fmt::format("{} of {} BASE runs and {} of {} NEW runs have values, at least 2 a side are needed: {}",
                          base_runs.size(), base_used.size(), next_runs.size(), next_used.size(), fmt::join(dropped, "; "));
    return outcome;
  }
  outcome.comparison = compare_runs(config_id, base_runs, next_runs, metric, options);
  if (!dropped.empty())
    outcome.warning = fmt::format("{}: compared on {} of {} BASE runs and {} of {} NEW runs, left out: {}", config_id,
                                  base_runs.size(), base_used.size(), next_runs.size(), next_used.size(),
                                  fmt::join(dropped, "; "));
  return outcome;
}

}  // namespace gpubench
