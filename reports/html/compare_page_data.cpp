#include "reports/html/compare_page_data.h"

#include <filesystem>

#include "core/config/errors.h"
#include "reports/compare/compare_format.h"
#include "reports/compare/config_runs.h"
#include "reports/json_fields.h"
#include "reports/html/report_page_data.h"

namespace gpubench {
namespace {

using nlohmann::json;

// A side's values drawn per config: enough to see the shape, few enough that 60 configs
// of 3000 steps stay a small page. Evenly spaced when there are more.
constexpr std::size_t kMaxDrawnValues = 200;

json drawn(const std::vector<double>& values) {
  json out = json::array();
  const std::size_t n = values.size();
  const std::size_t shown = std::min(n, kMaxDrawnValues);
  for (std::size_t i = 0; i < shown; ++i) out.push_back(json_fields::rounded(values[i * n / shown]));
  return out;
}

// What compare tests for one side of one config: the per-step values of a single run, or
// the value of each run the run-level test uses (config_runs.h: paired runs only in pairs).
std::vector<double> side_values(const ConfigRuns& side, const ConfigRuns& other, const CompareMetric& metric,
                                bool paired) {
  if (side.values.size() == 1) return side.values.front();
  std::vector<bool> used;
  return usable_run_values(side, other, paired, metric, used);
}

json metric_data(const CompareResult& result, const ReportSet& base, const ReportSet& next, bool paired) {
  json values = json::object();
  for (const ConfigComparison& c : result.configs) {
    const ConfigRuns base_runs = collect_config_runs(base, c.config_id, result.metric);
    const ConfigRuns next_runs = collect_config_runs(next, c.config_id, result.metric);
    const std::vector<double> b = side_values(base_runs, next_runs, result.metric, paired);
    const std::vector<double> n = side_values(next_runs, base_runs, result.metric, paired);
    values[c.config_id] = {{"base", drawn(b)}, {"new", drawn(n)}, {"base_count", b.size()}, {"new_count", n.size()}};
  }
  return {{"name", result.metric.name},
          {"result", result.json},
          {"values", values},
          {"text", format_compare(result, "table")}};
}

// "head" for "runs/head/" as for "runs/head.json": a title names the side, not its path.
std::string display_name(const std::string& path) {
  std::filesystem::path p(path);
  if (!p.has_filename()) p = p.parent_path();
  const std::string name = p.filename().string();
  return name.empty() ? path : name;
}

json side_info(const ReportSet& set) {
  return {{"path", set.name},
          {"runs", set.runs.size()},
          {"created_utc", json_fields::text(set.runs.front(), "created_utc")},
          {"env", environment_rows(set.runs.front())}};
}

}  // namespace

json compare_page_data(const ReportSet& base, const ReportSet& next, const CompareOptions& options) {
  json metrics = json::array(), not_compared = json::array();
  const CompareResult primary = compare_report_sets(base, next, options);  // throws as compare does
  metrics.push_back(metric_data(primary, base, next, options.paired));
  for (const CompareMetric& metric : compare_metrics()) {
    if (metric.name == options.metric) continue;
    CompareOptions other = options;
    other.metric = metric.name;
    try {
      metrics.push_back(metric_data(compare_report_sets(base, next, other), base, next, options.paired));
    } catch (const UsageError& error) {
      // The primary metric compared, so the sets are sound: this metric has no values.
      not_compared.push_back({{"metric", metric.name}, {"reason", error.what()}});
    }
  }
  return {{"kind", "compare"},
          {"title", "gpubench compare: " + display_name(base.name) + " vs " + display_name(next.name)},
          {"base", side_info(base)},
          {"new", side_info(next)},
          {"primary", options.metric},
          {"regression", primary.regression},
          {"metrics", metrics},
          {"not_compared_metrics", not_compared}};
}

}  // namespace gpubench
