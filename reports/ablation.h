#pragma once
// What each part of a recipe buys here: the report's matrix records its recipes
// (matrix.recipes: workload, device, config_id, baseline, parts); from the rows that ran,
// each part gets two comparisons of kind "ablation":
//   position "alone":    the plain config plus the part, against the plain config
//   position "in_stack": the recipe, against the recipe without the part
// and the recipe itself one, position "recipe" (against the plain config); the DDP recipe
// against the single-process recipe one of kind "scaling_efficiency" (its speedup over
// the rank count). Each carries speedup_ci95: the speedup's interval from the two rows'
// median intervals (stopping.median_ci95_relative), so a reader sees the noise.
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace gpubench {

nlohmann::json compute_ablations(const nlohmann::json& matrix, const nlohmann::json& results);

// One block per recipe whose rows ran, for the table and markdown printers:
//   ablation cnn/cpu: recipe cnn/cpu/fp32/adam-fused/channels-last 1.21x [1.15-1.27] the plain cnn/cpu/fp32
//     part            alone                         in the stack
//     adam-fused      1.02x [0.98-1.06] mem 1.00x   1.01x [0.96-1.06] mem 1.00x
//   ...
// Empty when the report has no ablation comparisons. Fitted to `columns` (fit_table.h): the
// memory ratios go first, then the long headers shorten.
std::string format_ablation_blocks(const nlohmann::json& report, std::size_t columns = static_cast<std::size_t>(-1));

}  // namespace gpubench
