#pragma once
// Reports made in code for the page and export tests: valid for load_report (and the
// schema's required fields), deterministic (a seeded LCG, no clock), any number of configs
// and steps, with a chosen slowdown, and a place for hostile strings.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpubench::test_support {

struct SyntheticSpec {
  int configs = 4;
  int steps = 30;
  std::uint64_t seed = 1;
  double slowdown = 1.0;  // step times x this (1.3: 30% slower)
  int slow_config = -1;   // only this config slows down (-1: all)
  std::string created_utc = "2026-12-01T00:00:00Z";
  std::string git_commit = "0123456789ab";
  std::string text = "";     // appended to every free-text field (env, reasons, warnings, verdicts)
  bool with_skipped = true;  // one more config, skipped with a reason
};

inline std::string synthetic_config_id(int i) {
  static const char* workloads[] = {"mlp", "cnn", "transformer", "gpt2"};
  return fmt::format("{}/cpu/fp32/acc{}", workloads[i % 4], i / 4 + 1);
}

inline nlohmann::json synthetic_summary(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto at = [&](double q) {
    const double pos = q * (v.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - lo) * (v[hi] - v[lo]);
  };
  double mean = 0;
  for (double x : v) mean += x / v.size();
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean) / std::max<std::size_t>(1, v.size() - 1);
  return {{"median", at(0.5)}, {"p10", at(0.1)},           {"p90", at(0.9)},
          {"mean", mean},      {"stddev", std::sqrt(var)}, {"min", v.front()},
          {"max", v.back()},   {"count", v.size()},        {"cv", std::sqrt(var) / mean}};
}

inline nlohmann::json synthetic_row(const SyntheticSpec& spec, int i, std::uint64_t& state) {
  const auto uniform = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / static_cast<double>(1ULL << 53);
  };
  const double base_ms = 5.0 + 3.0 * (i % 7);
  const double factor = (spec.slow_config < 0 || spec.slow_config == i) ? spec.slowdown : 1.0;
  const int batch = 64;
  std::vector<double> step_ms, rate, loss;
  for (int s = 0; s < spec.steps; ++s) {
    step_ms.push_back(base_ms * factor * (1 + 0.03 * (uniform() - 0.5) * 2));
    rate.push_back(batch * 1000.0 / step_ms.back());
    loss.push_back(2.3 * std::exp(-0.05 * s) + 0.05 * uniform());
  }
  const nlohmann::json phase = {{"median_ms", base_ms / 5}, {"share", 0.2}};
  const std::string id = synthetic_config_id(i);
  return {{"config_id", id},
          {"config",
           {{"workload", id.substr(0, id.find('/'))},
            {"device", "cpu"},
            {"precision", "fp32"},
            {"host_memory", "pageable"},
            {"parallel", "single"},
            {"world_size", 1}}},
          {"status", "ok"},
          {"reason", ""},
          {"workload",
           {{"name", id.substr(0, id.find('/'))},
            {"batch_size", batch},
            {"global_batch_size", batch},
            {"dataset_samples", 1024},
            {"parameters", 1000},
            {"definition", "synthetic" + spec.text}}},
          {"steps", {{"warmup", 1}, {"measured", spec.steps}}},
          {"threads", {{"intra_op", 1}, {"inter_op", 1}}},
          {"throughput", {{"samples_per_s", synthetic_summary(rate)}}},
          {"step_ms", synthetic_summary(step_ms)},
          {"samples", {{"step_ms", step_ms}}},
          {"phases",
           {{"data", phase},
            {"h2d", phase},
            {"forward", phase},
            {"backward", phase},
            {"optimizer", phase},
            {"other", {{"median_ms", 0.0}, {"share", 0.0}}}}},
          {"loss", {{"first", loss.front()}, {"last", loss.back()}, {"curve", loss}, {"fell", true}}},
          {"checkpoint", {{"done", false}, {"reason", "not asked" + spec.text}}},
          {"memory", {{"host_peak_rss_bytes", 100000000 + 1000000 * i}}},
          {"verdict",
           {{"kind", "compute-bound"},
            {"evidence", "e" + spec.text},
            {"suggestion", ""},
            {"text", "compute-bound" + spec.text}}},
          {"warnings", nlohmann::json::array({"a warning" + spec.text})},
          {"steps", {{"warmup", 1}, {"measured", 20}}},
          {"stopping", {{"reason", "steps"}, {"median_ci95_relative", 0.01}}}};
}

inline nlohmann::json synthetic_report(const SyntheticSpec& spec) {
  std::uint64_t state = spec.seed * 0x9E3779B97F4A7C15ULL + 1;
  nlohmann::json results = nlohmann::json::array(), ids = nlohmann::json::array();
  for (int i = 0; i < spec.configs; ++i) {
    results.push_back(synthetic_row(spec, i, state));
    ids.push_back(synthetic_config_id(i));
  }
  if (spec.with_skipped) {
    results.push_back({{"config_id", "mlp/cuda/fp32"},
                       {"config",
                        {{"workload", "mlp"},
                         {"device", "cuda"},
                         {"precision", "fp32"},
                         {"host_memory", "pageable"},
                         {"parallel", "single"},
                         {"world_size", 1}}},
                       {"status", "skipped"},
                       {"reason", "no CUDA device" + spec.text}});
    ids.push_back("mlp/cuda/fp32");
  }
  return {{"schema_version", 1},
          {"tool", {{"name", "gpubench"}, {"version", "0.1.0"}, {"git_commit", spec.git_commit}}},
          {"created_utc", spec.created_utc},
          {"command", "gpubench --matrix synthetic" + spec.text},
          {"env",
           {{"cpu_model", "Synthetic CPU" + spec.text},
            {"cores", 2},
            {"threads", 2},
            {"torch_version", "2.11.0" + spec.text},
            {"torch_cuda", false},
            {"blas", "mkl" + spec.text},
            {"compiler", "g++" + spec.text},
            {"os", "Debian" + spec.text},
            {"cuda",
             {{"compiled", false},
              {"available", false},
              {"reason", "not compiled" + spec.text},
              {"device_count", 0},
              {"devices", nlohmann::json::array()}}}}},
          {"matrix",
           {{"spec", "synthetic"},
            {"preset", "quick"},
            {"workloads", {"mlp"}},
            {"seed", 42},
            {"threads", 2},
            {"config_ids", ids}}},
          {"results", results},
          {"comparisons", nlohmann::json::array()}};
}

// "2026-12-01T00:00:00Z" + i hours (i < 24 * 28).
inline std::string synthetic_time(int i) { return fmt::format("2026-12-{:02d}T{:02d}:00:00Z", 1 + i / 24, i % 24); }

}  // namespace gpubench::test_support
