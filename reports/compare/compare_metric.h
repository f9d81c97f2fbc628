#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpubench {

// What `gpubench compare --metric` can compare.
//  per_step:     one value per measured step (samples.step_ms): U test + threshold.
//  single_value: one number per run (peak memory): only its ratio against the threshold.
enum class MetricKind { per_step, single_value };

struct CompareMetric {
  std::string name;       // --metric value, e.g. "samples_per_s"
  std::string unit;       // "samples/s", "ms", "bytes"
  bool higher_is_better;  // samples/s: higher; step time and memory: lower
  MetricKind kind;
};

// samples_per_s, step_ms, tflops_per_s, host_peak_rss_bytes, cuda_peak_allocated_bytes,
// cuda_peak_reserved_bytes.
const std::vector<CompareMetric>& compare_metrics();

// Throws UsageError naming the unknown value and listing the known metrics.
const CompareMetric& find_compare_metric(const std::string& name);

// One result's values of the metric, from a validated report (validate_report):
//  step_ms:       samples.step_ms;
//  samples_per_s: workload.global_batch_size (else batch_size) * 1000 / step_ms, per step;
//  tflops_per_s:  flops.training_per_step / 1e12 * 1000 / step_ms, per step (model FLOP/s:
//                 unlike samples/s it follows a change of --batch-size or of the model);
//  memory:        {memory.<name>}.
// No values (a result with no samples, no batch size, no such memory record) is not an
// error: `missing` says why, and compare lists the config as not compared.
struct MetricValues {
  std::vector<double> values;
  std::string missing;
};
MetricValues metric_values(const nlohmann::json& result, const CompareMetric& metric);

}  // namespace gpubench
