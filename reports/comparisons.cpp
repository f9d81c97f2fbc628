#include "reports/comparisons.h"

#include "reports/loss_parity.h"

#include <algorithm>
#include <string>
#include <vector>

namespace gpubench {
namespace {

// Pairs by config-id suffix (after "<workload>/"): kind, baseline, candidate.
struct PairRule {
  const char* kind;
  const char* baseline;
  const char* candidate;
};

const std::vector<PairRule>& pair_rules() {
  static const std::vector<PairRule> rules = {
      {"bf16_vs_fp32", "cpu/fp32", "cpu/bf16"},
      {"ddp_vs_single", "cpu/fp32", "cpu/fp32/ddp-2"},
      {"gpu_vs_cpu", "cpu/fp32", "cuda/fp32/pinned"},
      {"pinned_vs_pageable", "cuda/fp32/pageable", "cuda/fp32/pinned"},
      {"amp_fp16_vs_fp32", "cuda/fp32/pinned", "cuda/amp-fp16/pinned"},
      {"amp_bf16_vs_fp32", "cuda/fp32/pinned", "cuda/amp-bf16/pinned"},
      // The same bf16 autocast model but for its blocks' Linear matmuls in FP8.
      {"fp8_vs_bf16", "cuda/amp-bf16/pinned", "cuda/fp8/pinned"},
      {"dp_vs_single", "cuda/fp32/pinned", "cuda/fp32/pinned/dp"},
      // The matrix runs cuda DDP with one rank per visible device: ddp-1 on one GPU, ddp-8 on eight.
      {"ddp_vs_single", "cuda/fp32/pinned", "cuda/fp32/pinned/ddp-*"},
      {"ddp_vs_dp", "cuda/fp32/pinned/dp", "cuda/fp32/pinned/ddp-*"},
      {"adam_foreach_vs_loop", "cpu/fp32", "cpu/fp32/adam-foreach"},
      {"adam_fused_vs_loop", "cpu/fp32", "cpu/fp32/adam-fused"},
      {"channels_last_vs_contiguous", "cpu/fp32", "cpu/fp32/channels-last"},
      {"tf32_vs_fp32", "cuda/fp32/pinned", "cuda/tf32/pinned"},
      {"adam_foreach_vs_loop", "cuda/fp32/pinned", "cuda/fp32/pinned/adam-foreach"},
      {"adam_fused_vs_loop", "cuda/fp32/pinned", "cuda/fp32/pinned/adam-fused"},
      {"channels_last_vs_contiguous", "cuda/fp32/pinned", "cuda/fp32/pinned/channels-last"},
      {"adam_fused_vs_loop", "cuda/amp-fp16/pinned", "cuda/amp-fp16/pinned/adam-fused"},
      {"graph_vs_eager", "cuda/fp32/pinned/adam-fused", "cuda/fp32/pinned/graph"},
      // Activation checkpointing: the memory ratio is what it is for, the speedup its price.
      {"ckpt_vs_plain", "cpu/fp32", "cpu/fp32/ckpt"},
      {"ckpt_vs_plain", "cuda/fp32/pinned", "cuda/fp32/pinned/ckpt"},
      // samples/s counts every micro-batch; memory is what the larger global batch costs.
      {"accumulation_vs_plain", "cpu/fp32", "cpu/fp32/acc*"},
      {"accumulation_vs_plain", "cuda/fp32/pinned", "cuda/fp32/pinned/acc*"},
  };
  return rules;
}

// `id` may end in '*': the first ok row whose id starts with the rest.
const nlohmann::json* find_ok(const nlohmann::json& results, const std::string& id) {
  const bool prefix = !id.empty() && id.back() == '*';
  const std::string stem = prefix ? id.substr(0, id.size() - 1) : id;
  for (const auto& row : results) {
    const std::string row_id = row.value("config_id", "");
    if ((prefix ? row_id.rfind(stem, 0) == 0 : row_id == id) && row.value("status", "") == "ok") return &row;
  }
  return nullptr;
}

double median_throughput(const nlohmann::json& row) {
  return row["throughput"]["samples_per_s"].value("median", 0.0);
}

double memory_value(const nlohmann::json& row, const std::string& metric) {
  return row.value("memory", nlohmann::json::object()).value(metric, 0.0);
}

// Device memory when both rows measured it (GPU vs GPU), otherwise host peak RSS, so a
// ratio never mixes the two.
std::string memory_metric(const nlohmann::json& base, const nlohmann::json& candidate) {
  const std::string device_metric = "cuda_peak_allocated_bytes";
  const auto has = [&](const nlohmann::json& row) { return row.value("memory", nlohmann::json::object()).contains(device_metric); };
  if (has(base) && has(candidate)) return device_metric;
  // The training steps' own host peak where both rows have it: the process peak also holds
  // the checkpoint round trip (a second model and optimizer), which hides what a step uses.
  const auto has_training = [](const nlohmann::json& row) {
    return row.value("memory", nlohmann::json::object()).contains("host_peak_rss_bytes_training");
  };
  return has_training(base) && has_training(candidate) ? "host_peak_rss_bytes_training" : "host_peak_rss_bytes";
}

}  // namespace

nlohmann::json compute_comparisons(const nlohmann::json& results) {
  nlohmann::json comparisons = nlohmann::json::array();
  std::vector<std::string> workloads;
  for (const auto& row : results) {
    const std::string workload = row["config"].value("workload", "");
    if (std::find(workloads.begin(), workloads.end(), workload) == workloads.end()) workloads.push_back(workload);
  }
  for (const auto& workload : workloads) {
    for (const auto& rule : pair_rules()) {
      const auto* base = find_ok(results, workload + "/" + rule.baseline);
      const auto* candidate = find_ok(results, workload + "/" + rule.candidate);
      if (base == nullptr || candidate == nullptr) continue;
      const double base_rate = median_throughput(*base);
      const std::string metric = memory_metric(*base, *candidate);
      const double base_memory = memory_value(*base, metric);
      comparisons.push_back({{"kind", rule.kind},
                             {"workload", workload},
                             {"baseline", (*base)["config_id"]},
                             {"candidate", (*candidate)["config_id"]},
                             {"speedup", base_rate > 0 ? median_throughput(*candidate) / base_rate : 0.0},
                             {"memory_metric", metric},
                             {"memory_ratio", base_memory > 0 ? memory_value(*candidate, metric) / base_memory : 0.0},
                             {"loss_ratio", late_loss_ratio(*base, *candidate)}});
    }
  }
  return comparisons;
}

}  // namespace gpubench
