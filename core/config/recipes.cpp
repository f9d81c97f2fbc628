#include "core/config/recipes.h"

#include <algorithm>
#include <numeric>

#include "core/config/stack_parts.h"

namespace gpubench {
namespace {

constexpr int kAssumedComputeCapability = 80;  // no GPU to ask: an Ampere-class stack

// Adds each part of `wanted`, in order, where the table and the workload allow it.
Config stack(Config config, const std::vector<std::string>& wanted, const WorkloadTraits& traits) {
  for (const auto& part : wanted) {
    const Config next = with_part(config, part);
    if (is_legal(next) && !workload_rule_broken(next, traits)) config = next;
  }
  return config;
}

std::string single_basis(const std::string& workload, DeviceKind device, const WorkloadTraits& traits) {
  if (device == DeviceKind::Cpu)
    return "a CPU's best-known stack: bf16 autocast where the CPU has bf16 units (avx512_bf16/amx_bf16), fused Adam, "
           "channels_last for conv nets";
  if (traits.image_batches)
    return "the stack published " + workload + " numbers use (NVIDIA DeepLearningExamples: AMP + channels_last), with "
           "fused Adam and the step in a CUDA Graph";
  return "the stack of the fastest published GPT-2 124M runs (llm.c, nanoGPT: bf16 autocast + fused AdamW), with the "
         "step in a CUDA Graph";
}

}  // namespace

std::vector<Recipe> recipes_for(const std::string& workload, const WorkloadTraits& traits, DeviceKind device,
                                const RecipeMachine& machine) {
  const Config plain = plain_config(workload, device);
  std::vector<Recipe> recipes;
  std::vector<std::string> wanted;
  if (device == DeviceKind::Cpu) {
    if (machine.cpu_bf16_units) wanted.push_back("bf16");
    wanted.insert(wanted.end(), {"adam-fused", "channels-last"});
  } else {
    const int capability = machine.cuda_compute_capability > 0 ? machine.cuda_compute_capability : kAssumedComputeCapability;
    wanted.push_back(capability >= 80 ? "amp-bf16" : "amp-fp16");
    wanted.insert(wanted.end(), {"channels-last", "adam-fused", "graph"});
  }
  const Config single = stack(plain, wanted, traits);
  recipes.push_back({"recipe", single, single_basis(workload, device, traits)});
  if (device == DeviceKind::Cuda && traits.fp8_linears && machine.cuda_compute_capability >= 89) {
    const Config fp8 = stack(plain, {"fp8", "adam-fused", "graph"}, traits);
    recipes.push_back({"fp8 recipe", fp8, "the recipe with the blocks' Linear layers in FP8 (torchao's Float8Linear "
                                          "default recipe), on a GPU with FP8 tensor cores"});
  }
  const int ranks = device == DeviceKind::Cuda ? std::max(1, machine.cuda_devices) : machine.cpu_ddp_ranks;
  // DDP joins the stack; what the table refuses with it (graph) leaves it.
  Config ddp = with_part(plain, "ddp-" + std::to_string(ranks));
  for (const auto& part : stack_parts(single)) {
    const Config next = with_part(ddp, part);
    if (is_legal(next)) ddp = next;
  }
  recipes.push_back({"ddp recipe", ddp, "the recipe on " + std::to_string(ranks) + " DDP rank(s), less what DDP "
                                        "cannot take (technique_rules.h); against the recipe: the scaling efficiency"});
  // The decoder LMs people shard get the way they are trained past one GPU's memory: the
  // DDP recipe with its ranks sharded and each block recomputed (torchtitan's Llama recipe:
  // FSDP2 per block, bf16, activation checkpointing, fused AdamW).
  if (traits.units && traits.segments && traits.real_scale && !traits.image_batches) {
    Config fsdp = ddp;
    fsdp.parallel = ParallelMode::Fsdp;
    fsdp = stack(fsdp, {"ckpt"}, traits);
    if (is_legal(fsdp))
      recipes.push_back({"fsdp recipe", fsdp, "the DDP recipe with parameters, gradients and Adam sharded over its " +
                                                  std::to_string(ranks) + " rank(s) and each block recomputed in "
                                                  "backward (torchtitan's Llama recipe); against the DDP recipe: what "
                                                  "sharding costs in step time and saves in memory"});
  }
  // A mixture of experts gets expert parallelism (torchtitan's MoE recipe): the DDP recipe
  // with each sparse layer's experts split over K of its ranks, K the most that divide both
  // the ranks and the experts; against the DDP recipe (ep_vs_ddp): what the all-to-alls cost
  // and the experts' memory saves.
  if (const int k = std::gcd(ranks, traits.experts); traits.experts > 0 && !traits.stacked_experts && k >= 2) {
    const Config ep = with_part(ddp, "ep-" + std::to_string(k));
    if (is_legal(ep) && !workload_rule_broken(ep, traits))
      recipes.push_back({"ep recipe", ep, "the DDP recipe with each sparse layer's experts split over " + std::to_string(k) +
                                              " of its " + std::to_string(ranks) + " rank(s) (expert parallel, "
                                              "torchtitan's MoE recipe); against the DDP recipe: what the all-to-alls "
                                              "cost and the experts' memory saves"});
  }
  return recipes;
}

std::vector<Config> ablation_configs(const Recipe& recipe) {
  const Config plain = plain_config(recipe.config.workload, recipe.config.device);
  std::vector<Config> configs = {plain, recipe.config};
  const auto parts = stack_parts(recipe.config);
  for (const auto& part : parts) add_unique(configs, without_part(recipe.config, part));
  for (const auto& part : parts) {
    const Config added = with_part(plain, part);
    if (is_legal(added)) add_unique(configs, added);
  }
  return configs;
}

}  // namespace gpubench
