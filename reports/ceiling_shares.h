#pragma once
#include <nlohmann/json.hpp>

namespace gpubench {

// Expresses each ok row against the machine's measured ceilings (a gpubench-bench
// ceilings file, ceilings/ceilings_file.h): row["vs_ceilings"] = {
//   train_step_share: samples/s over the single-step benchmark of the same workload and device,
//   h2d_share:        achieved H2D GB/s over the pinned or pageable copy ceiling (CUDA rows) }.
// Shares near 1 mean the config already gets what the hardware and LibTorch give.
void apply_ceilings(nlohmann::json& results, const nlohmann::json& ceilings);

}  // namespace gpubench
