#pragma once
// Recipes: per workload and device the best-known stack for its class of model, built from
// the rule table and what the machine can do; and the ablation of each recipe.
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/config/technique_rules.h"

namespace gpubench {

// What a recipe needs to know of the machine.
struct RecipeMachine {
  int cuda_devices = 0;
  // cuda:0's compute capability as major * 10 + minor; 0 when there is no GPU to ask, in
  // which case the stack of an Ampere-class GPU (8.0: bf16, no FP8) is listed.
  int cuda_compute_capability = 0;
  bool cpu_bf16_units = false;  // avx512_bf16 / amx_bf16: CPU bf16 is fast
  int cpu_ddp_ranks = 2;
};

struct Recipe {
  std::string name;  // "recipe", "fp8 recipe", "ddp recipe", "fsdp recipe", "ep recipe"
  Config config;
  std::string basis;  // where the stack comes from, for the report and the docs
};

// The recipes of `workload` on `device`: the single-process recipe first, then the FP8
// recipe (cuda, a workload with fp8-linears, compute capability 8.9+), then the DDP recipe
// (the single-process recipe on ddp-N ranks, N = the GPUs, or cpu_ddp_ranks, less what
// the rule table refuses with ddp), then for the real-scale decoders the FSDP recipe (the
// DDP recipe on fsdp-N, with ckpt), then for a mixture of experts the EP recipe (the DDP
// recipe with ep-K, K = gcd(ranks, experts) when 2 or more). Each technique of the class's
// stack joins only when the table allows it with what is already in and the workload has
// what it needs.
std::vector<Recipe> recipes_for(const std::string& workload, const WorkloadTraits& traits, DeviceKind device,
                                const RecipeMachine& machine);

// One recipe's ablation: the plain config, the recipe, each leave-one-out (recipe minus
// one part) and each add-one (plain plus one part), without duplicates, in that order.
// A part a leave-one-out cannot drop (a graph's fused Adam) gives no config of its own.
std::vector<Config> ablation_configs(const Recipe& recipe);

}  // namespace gpubench
