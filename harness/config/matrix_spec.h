#pragma once
#include <string>
#include <vector>

#include "config/config.h"

namespace gpubench {

// Expands a --matrix SPEC into configurations, nvbench-style: the workloads axis times
// the technique axis. SPEC is `all`, a group (cpu, gpu, amp, pinned, parallel) or a comma
// list of config ids; groups and ids may be mixed ("cpu,cnn/cuda/fp32/pinned").
struct MatrixRequest {
  std::string spec;
  std::vector<std::string> workloads;        // selected (--workload), in order
  std::vector<std::string> known_workloads;  // every workload this build has
  int cuda_devices = 0;                      // ddp-N on CUDA uses N = max(1, devices)
  int cpu_ddp_ranks = 2;
  // --accumulate K (> 1): every config of the matrix takes K micro-batches per optimizer
  // step (its id gains accK), except graph configs, which capture one batch, and ids that
  // name their own accK.
  int accumulate = 1;
};

std::vector<Config> expand_matrix(const MatrixRequest& request);

// The ids SPEC names one by one (not through a group), normalised ("cnn/cuda/fp32" is
// "cnn/cuda/fp32/pinned"): what the user asked for by name.
std::vector<std::string> named_config_ids(const std::string& spec);

// The group names SPEC accepts, for --help and error messages.
const std::vector<std::string>& matrix_groups();

}  // namespace gpubench
