#pragma once
#include <nlohmann/json.hpp>

namespace gpubench {

// What each technique buys, per workload: for every (baseline, candidate) pair of the
// mission whose two rows are both ok, the throughput speedup (ratio of median samples/s)
// and the memory ratio (peak device memory where measured, else host peak RSS).
nlohmann::json compute_comparisons(const nlohmann::json& results);

}  // namespace gpubench
