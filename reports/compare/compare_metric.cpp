#include "reports/compare/compare_metric.h"

#include "core/config/errors.h"

namespace gpubench {

using nlohmann::json;

const std::vector<CompareMetric>& compare_metrics() {
  static const std::vector<CompareMetric> metrics = {
      {"samples_per_s", "samples/s", true, MetricKind::per_step},
      {"step_ms", "ms", false, MetricKind::per_step},
      {"tflops_per_s", "TFLOP/s", true, MetricKind::per_step},
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
  // Work per step, for the rates: samples (samples_per_s) or model TFLOPs (tflops_per_s).
  double work = 1;
  if (metric.name == "samples_per_s") {
    work = 0;
    if (const auto workload = result.find("workload"); workload != result.end() && workload->is_object()) {
      if (workload->contains("global_batch_size")) {
        work = (*workload)["global_batch_size"].get<double>();
      } else if (workload->contains("batch_size")) {
        work = (*workload)["batch_size"].get<double>();
      }
    }
    if (work <= 0) {
      out.missing = "no workload.global_batch_size to turn step times into samples/s";
      return out;
    }
  } else if (metric.name == "tflops_per_s") {
    const auto flops = result.find("flops");
    if (flops == result.end() || !flops->is_object() || !flops->contains("training_per_step")) {
      out.missing = "no flops.training_per_step (a report from before model FLOPs)";
      return out;
    }
    work = (*flops)["training_per_step"].get<double>() / 1e12;
  }
  out.values.reserve(steps.size());
  for (const json& step : steps) {
    const double ms = step.get<double>();
    out.values.push_back(metric.name == "step_ms" ? ms : work * 1000.0 / ms);
  }
  return out;
}

}  // namespace gpubench
