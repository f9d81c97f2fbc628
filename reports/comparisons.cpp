#include "reports/comparisons.h"

#include "reports/loss_parity.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/config/stack_parts.h"

namespace gpubench {
namespace {

// The comparison kind of each part of a stack (stack_parts.h): a row against the same row
// without that part.
std::string kind_of(const std::string& part) {
  static const std::map<std::string, std::string> kinds = {
      {"bf16", "bf16_vs_fp32"},
      {"amp-fp16", "amp_fp16_vs_fp32"},
      {"amp-bf16", "amp_bf16_vs_fp32"},
      {"tf32", "tf32_vs_fp32"},
      // The same bf16 autocast model but for its blocks' Linear matmuls in FP8.
      {"fp8", "fp8_vs_bf16"},
      {"dp", "dp_vs_single"},
      {"adam-foreach", "adam_foreach_vs_loop"},
      {"adam-fused", "adam_fused_vs_loop"},
      {"channels-last", "channels_last_vs_contiguous"},
      // Activation checkpointing: the memory ratio is what it is for, the speedup its price.
      {"ckpt", "ckpt_vs_plain"},
      // Against the eager fused-Adam row: the same kernels, so the ratio is the launches saved.
      {"graph", "graph_vs_eager"},
  };
  if (const auto found = kinds.find(part); found != kinds.end()) return found->second;
  for (const char* mode : {"ddp", "zero1", "zero2", "fsdp"})
    if (part.rfind(std::string(mode) + "-", 0) == 0) return std::string(mode) + "_vs_single";
  // samples/s counts every micro-batch; memory is what the larger global batch costs.
  if (part.rfind("acc", 0) == 0) return "accumulation_vs_plain";
  return part + "_vs_without";
}

std::optional<Config> parsed(const nlohmann::json& row) {
  try {
    return Config::parse(row.value("config_id", ""));
  } catch (const std::exception&) {
    return std::nullopt;  // a report of another grammar: its rows compare with nothing
  }
}

double median_throughput(const nlohmann::json& row) {
  return row["throughput"]["samples_per_s"].value("median", 0.0);
}

double memory_value(const nlohmann::json& row, const std::string& metric) {
  return row.value("memory", nlohmann::json::object()).value(metric, 0.0);
}

// The largest model state (parameters, gradients, optimizer state) one rank held: what
// sharding divides. 0 for a row of one process.
double model_state_bytes(const nlohmann::json& row) {
  return row.value("ddp", nlohmann::json::object()).value("memory", nlohmann::json::object()).value("model_state_total_bytes_max", 0.0);
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

// Every (kind, baseline id) a row is compared with: the row without each part of its
// stack; a pinned row against its pageable twin; the plain GPU row against the plain CPU
// row; a DDP row against the DataParallel row of the same stack.
std::vector<std::pair<std::string, std::string>> baselines_of(const Config& row) {
  std::vector<std::pair<std::string, std::string>> pairs;
  const Config plain_cpu = plain_config(row.workload, DeviceKind::Cpu);
  if (row == plain_config(row.workload, DeviceKind::Cuda)) pairs.emplace_back("gpu_vs_cpu", plain_cpu.id());
  if (row.device == DeviceKind::Cuda && row.host_memory == HostMemory::Pinned) {
    Config pageable = row;
    pageable.host_memory = HostMemory::Pageable;
    pairs.emplace_back("pinned_vs_pageable", pageable.id());
  }
  for (const auto& part : stack_parts(row)) {
    const Config without = without_part(row, part);
    if (without == row) continue;
    // ep-K against its mode alone (ep_vs_ddp, ep_vs_fsdp): the experts' split's price and saving.
    const bool experts = part.rfind("ep-", 0) == 0;
    pairs.emplace_back(experts ? "ep_vs_" + to_string(row.parallel) : kind_of(part), without.id());
  }
  if (row.parallel == ParallelMode::Ddp && row.device == DeviceKind::Cuda) {
    Config dp = row;
    dp.parallel = ParallelMode::DataParallel;
    dp.world_size = 1;
    pairs.emplace_back("ddp_vs_dp", dp.id());
  }
  // A sharded row against DDP at the same ranks and stack: what the sharding costs in step
  // time, and saves in each rank's memory.
  if (row.sharded()) {
    Config ddp = row;
    ddp.parallel = ParallelMode::Ddp;
    pairs.emplace_back(to_string(row.parallel) + "_vs_ddp", ddp.id());
  }
  return pairs;
}

}  // namespace

nlohmann::json compare_rows(const std::string& kind, const nlohmann::json& base, const nlohmann::json& candidate) {
  const double base_rate = median_throughput(base);
  const std::string metric = memory_metric(base, candidate);
  const double base_memory = memory_value(base, metric);
  nlohmann::json comparison = {{"kind", kind},
          {"workload", candidate["config"].value("workload", "")},
          {"baseline", base["config_id"]},
          {"candidate", candidate["config_id"]},
          {"speedup", base_rate > 0 ? median_throughput(candidate) / base_rate : 0.0},
          {"memory_metric", metric},
          {"memory_ratio", base_memory > 0 ? memory_value(candidate, metric) / base_memory : 0.0},
          {"loss_ratio", late_loss_ratio(base, candidate)}};
  // Both rows of ranks: the per-rank model state too (the sharded modes' point).
  if (model_state_bytes(base) > 0 && model_state_bytes(candidate) > 0)
    comparison["model_state_ratio"] = model_state_bytes(candidate) / model_state_bytes(base);
  return comparison;
}

// Rows of one sequence length, or of workloads without one: samples of two lengths are not
// the same work (a decoder's CPU row trains a shorter default sequence than its GPU row).
bool same_sequence(const nlohmann::json& a, const nlohmann::json& b) {
  const auto length = [](const nlohmann::json& row) {
    return row.value("workload", nlohmann::json::object()).value("seq_len", nlohmann::json());
  };
  return length(a) == length(b);
}

const nlohmann::json* find_ok_row(const nlohmann::json& results, const std::string& id) {
  for (const auto& row : results)
    if (row.value("config_id", "") == id && row.value("status", "") == "ok") return &row;
  return nullptr;
}

nlohmann::json compute_comparisons(const nlohmann::json& results) {
  nlohmann::json comparisons = nlohmann::json::array();
  for (const auto& row : results) {
    if (row.value("status", "") != "ok") continue;
    const auto config = parsed(row);
    if (!config) continue;
    for (const auto& [kind, baseline_id] : baselines_of(*config))
      if (const auto* base = find_ok_row(results, baseline_id); base && same_sequence(*base, row))
        comparisons.push_back(compare_rows(kind, *base, row));
  }
  return comparisons;
}

}  // namespace gpubench
