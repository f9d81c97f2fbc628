#pragma once
// Whether a config's child makes the checkpoint round trip (save, load into a second model
// and optimizer, compare: run/checkpoint_check.h). The parent decides it, for every config
// before its child starts, and the child only carries out what it is told: its row says
// why a round trip was left out.
#include <map>
#include <string>

#include "core/config/config.h"
#include "core/config/run_settings.h"
#include "harness/run/capability.h"

namespace gpubench {

// Why this config's round trip is left out, or "" when it runs:
//  - --checkpoint-check off;
//  - once (or auto, on a model of kCheckpointEveryBelowParameters or more), when `checked`
//    (workload -> the config whose row made it) already holds this config's workload;
//  - a CPU config whose round trip's second model and optimizer would not fit beside its
//    training in the host memory left, or a CUDA config whose round trip would not fit on
//    the GPU beside what its training holds there (run/memory_check.h; a CUDA Graph's pool
//    stays reserved): the config still measures.
std::string checkpoint_skip_reason(const Config& config, const RunSettings& settings, const MachineCapabilities& machine,
                                   const std::map<std::string, std::string>& checked);

}  // namespace gpubench
