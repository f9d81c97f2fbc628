#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/config/recipes.h"
#include "core/config/technique_rules.h"

namespace gpubench {

// Expands a --matrix SPEC into configurations, nvbench-style: the workloads axis times
// the technique axis. SPEC is `all`, a group (cpu, gpu, amp, pinned, parallel, tuning,
// recipes, ablation) or a comma list of config ids; groups and ids may be mixed
// ("cpu,cnn/cuda/fp32/pinned").
struct MatrixRequest {
  std::string spec;
  std::vector<std::string> workloads;                     // selected (--workload), in order
  std::map<std::string, WorkloadTraits> known_workloads;  // every workload of this run, by name
  int cuda_devices = 0;                                   // ddp-N on CUDA uses N = max(1, devices)
  int cpu_ddp_ranks = 2;
  int cuda_compute_capability = 0;  // cuda:0's, major * 10 + minor (0: no GPU): the recipes' precision
  bool cpu_bf16_units = false;      // the CPU recipes' precision
  // --accumulate K (> 1): every config of the matrix takes K micro-batches per optimizer
  // step (its id gains accK), except graph configs, which capture one batch, and ids that
  // name their own accK.
  int accumulate = 1;

  RecipeMachine recipe_machine() const;
};

// Throws UsageError for an unknown group or workload, or an id the grammar, the rule table
// or its workload's traits refuse (technique_rules.h), naming it and why.
std::vector<Config> expand_matrix(const MatrixRequest& request);

// The recipes of every selected workload on both devices, in the order the groups list
// them: what the report's matrix section records so ablations can be computed from rows.
std::vector<Recipe> matrix_recipes(const MatrixRequest& request);

// The ids SPEC names one by one (not through a group), normalised ("cnn/cuda/fp32" is
// "cnn/cuda/fp32/pinned"): what the user asked for by name.
std::vector<std::string> named_config_ids(const std::string& spec);

// The group names SPEC accepts, for --help and error messages.
const std::vector<std::string>& matrix_groups();

}  // namespace gpubench
