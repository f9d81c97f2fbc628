#include "reports/compare/compare_metric.h"

#include "config/errors.h"

namespace gpubench {

using nlohmann::json;

const std::vector<CompareMetric>& compare_metrics() {
  static const std::vector<CompareMetric> metrics = {
      {"samples_per_s", "samples/s", true, MetricKind::per_step},
      {"step_ms", "ms", false, MetricKind::per_step},
      {"host_peak_rss_bytes", "bytes", false, MetricKind::single_value},
      {"cuda_peak_allocated_bytes", "bytes", false, MetricKind::single_value},
      {"cuda_peak_reserved_bytes", "bytes", false, MetricKind::single_value},
  };
  return metrics;
}

const CompareMetric& find_compare_metric(const std::string& name) {
  std::string known;
  for (const CompareMetric& metric : compare_metrics()) {
    if (metric.name == name) return metric;
    known += (known.empty() ? "" : ", ") + metric.name;
  }
  throw UsageError("unknown --metric '" + name + "': expected one of " + known);
}

MetricValues metric_values(const json& result, const CompareMetric& metric) {
  MetricValues out;
  if (metric.kind == MetricKind::single_value) {
    const auto memory = result.find("memory");
    if (memory == result.end() || !memory->is_object() || !memory->contains(metric.name) ||
        (*memory)[metric.name].is_null()) {
      out.missing = "no memory." + metric.name;
      return out;
    }
    out.values.push_back((*memory)[metric.name].get<double>());
    return out;
  }

  const auto samples = result.find("samples");
  if (samples == result.end() || !samples->is_object() || !samples->contains("step_ms")) {
    out.missing = "no per-step samples (samples.step_ms)";
    return out;
  }
  const json& steps = (*samples)["step_ms"];
  if (steps.empty()) {
    out.missing = "samples.step_ms is empty";
    return out;
  }
  double batch = 1;  // samples per step, for samples_per_s
  if (metric.name == "samples_per_s") {
    batch = 0;
    if (const auto workload = result.find("workload"); workload != result.end() && workload->is_object()) {
      if (workload->contains("global_batch_size")) {
        batch = (*workload)["global_batch_size"].get<double>();
      } else if (workload->contains("batch_size")) {
        batch = (*workload)["batch_size"].get<double>();
      }
    }
    if (batch <= 0) {
      out.missing = "no workload.global_batch_size to turn step times into samples/s";
      return out;
    }
  }
  out.values.reserve(steps.size());
  for (const json& step : steps) {
    const double ms = step.get<double>();
    out.values.push_back(metric.name == "samples_per_s" ? batch * 1000.0 / ms : ms);
  }
  return out;
}

}  // namespace gpubench
