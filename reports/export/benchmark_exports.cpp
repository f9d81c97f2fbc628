#include "reports/export/benchmark_exports.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/config/errors.h"
#include "reports/compare/report_loader.h"
#include "reports/json_fields.h"

namespace gpubench {
namespace {

using nlohmann::json;

using json_fields::number;
using json_fields::object_or_empty;

// The ok rows with a config id, in report order.
std::vector<const json*> ok_rows(const json& report, const std::string& name, const char* flag) {
  std::vector<const json*> rows;
  const auto results = report.find("results");
  if (results != report.end() && results->is_array())
    for (const json& row : *results)
      if (row.is_object() && row.value("status", json()) == "ok" && row.contains("config_id") &&
          row["config_id"].is_string())
        rows.push_back(&row);
  if (rows.empty())
    throw UsageError(std::string(flag) + ": report '" + name +
                     "' has no ok row: nothing to export (every config was "
                     "skipped or failed)");
  // A benchmark's name is the row's result_key (a tune search's rows: the config id with its
  // batch and step): a name twice would keep only the last in Bencher's map and duplicate
  // names in github-action-benchmark's list.
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (result_key(*rows[i]) == result_key(*rows[j]))
        throw UsageError(std::string(flag) + ": report '" + name + "' has config " + result_key(*rows[i]) +
                         " twice: expected one row per config (a tune search's: per config, batch and step)");
  return rows;
}

// A BMF metric from a report summary {median, p10, p90}; null when there is none.
json bmf_metric(const json& summary) {
  const auto median = number(summary, "median");
  if (!median) return nullptr;
  json metric = {{"value", *median}};
  if (const auto p10 = number(summary, "p10")) metric["lower_value"] = *p10;
  if (const auto p90 = number(summary, "p90")) metric["upper_value"] = *p90;
  return metric;
}

json github_entry(const std::string& name, const char* unit, const json& summary, const json& row) {
  const auto median = number(summary, "median");
  if (!median) return nullptr;
  const double p10 = number(summary, "p10").value_or(*median), p90 = number(summary, "p90").value_or(*median);
  const double half = std::max(*median - p10, p90 - *median);
  std::string extra = fmt::format("median over {:.0f} measured steps: p10 {:.6g}, p90 {:.6g}",
                                  number(summary, "count").value_or(0), p10, p90);
  const json& workload = object_or_empty(row, "workload");
  if (const auto batch = number(workload, "global_batch_size")) extra += fmt::format("; global batch {:.0f}", *batch);
  return {{"name", name},
          {"unit", unit},
          {"value", *median},
          {"range", fmt::format("± {:.6g}", half)},
          {"extra", extra}};
}

}  // namespace

json bencher_metric_format(const json& report, const std::string& name) {
  json out = json::object();
  for (const json* row : ok_rows(report, name, "--bencher")) {
    json measures = json::object();
    const json& throughput = object_or_empty(*row, "throughput");
    for (const auto& [key, slug] :
         {std::pair{"samples_per_s", "samples-per-s"}, std::pair{"tokens_per_s", "tokens-per-s"},
          std::pair{"tflops_per_s", "tflops-per-s"}})
      if (json metric = bmf_metric(object_or_empty(throughput, key)); !metric.is_null()) measures[slug] = metric;
    if (json metric = bmf_metric(object_or_empty(*row, "step_ms")); !metric.is_null()) measures["step-ms"] = metric;
    const json& memory = object_or_empty(*row, "memory");
    for (const auto& [key, slug] : {std::pair{"host_peak_rss_bytes", "host-peak-rss-bytes"},
                                    std::pair{"cuda_peak_allocated_bytes", "cuda-peak-allocated-bytes"},
                                    std::pair{"cuda_peak_reserved_bytes", "cuda-peak-reserved-bytes"}})
      if (const auto value = number(memory, key)) measures[slug] = {{"value", *value}};
    if (!measures.empty()) out[result_key(*row)] = measures;
  }
  return out;
}

json github_benchmark_bigger_is_better(const json& report, const std::string& name) {
  json out = json::array();
  for (const json* row : ok_rows(report, name, "--github-benchmark")) {
    const std::string id = result_key(*row);
    const json& throughput = object_or_empty(*row, "throughput");
    for (const auto& [key, unit] : {std::pair{"samples_per_s", "samples/s"}, std::pair{"tokens_per_s", "tokens/s"}})
      if (json entry = github_entry(id + " " + unit, unit, object_or_empty(throughput, key), *row); !entry.is_null())
        out.push_back(entry);
  }
  return out;
}

json github_benchmark_smaller_is_better(const json& report, const std::string& name) {
  json out = json::array();
  for (const json* row : ok_rows(report, name, "--github-benchmark-smaller")) {
    const std::string id = result_key(*row);
    if (json entry = github_entry(id + " step time", "ms", object_or_empty(*row, "step_ms"), *row); !entry.is_null())
      out.push_back(entry);
    const json& memory = object_or_empty(*row, "memory");
    for (const auto& [key, what] :
         {std::pair{"host_peak_rss_bytes", "host peak RSS"}, std::pair{"cuda_peak_allocated_bytes", "CUDA peak allocated"}})
      if (const auto bytes = number(memory, key))
        out.push_back({{"name", id + " " + what}, {"unit", "MiB"}, {"value", *bytes / (1024.0 * 1024.0)},
                       {"extra", fmt::format("{:.0f} bytes, one value a run", *bytes)}});
  }
  return out;
}

}  // namespace gpubench
