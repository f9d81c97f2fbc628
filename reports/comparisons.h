#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace gpubench {

// What each technique buys, per workload: for every (baseline, candidate) pair of the
// mission whose two rows are both ok, the throughput speedup (ratio of median samples/s)
// and the memory ratio (peak device memory where measured, else host peak RSS).
// Each technique's comparison is a row against the same row without that technique (when
// both ran): kinds amp_bf16_vs_fp32, adam_fused_vs_loop, graph_vs_eager, ...; plus
// pinned_vs_pageable, gpu_vs_cpu (the plain rows) and ddp_vs_dp.
nlohmann::json compute_comparisons(const nlohmann::json& results);

// One comparison of two ok rows: speedup (median samples/s ratio), memory ratio on the
// metric both measured, late-loss ratio.
nlohmann::json compare_rows(const std::string& kind, const nlohmann::json& base, const nlohmann::json& candidate);

// The row of `results` with this config_id that ran ok; nullptr when none did.
const nlohmann::json* find_ok_row(const nlohmann::json& results, const std::string& id);

}  // namespace gpubench
