#pragma once
// `gpubench --list`: each config of the matrix planned once (whether it runs here, and why
// not; what it will run; its memory estimate; why the checkpoint round trip is left out;
// with --assume-gpus its plan on those GPUs), printed as the table, or with --format json
// as an array of one object per config made from the same plan. Runs nothing.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/gpu_plan.h"
#include "core/config/config.h"
#include "core/config/run_settings.h"
#include "harness/run/capability.h"

namespace gpubench {

// `left_out`: the configs the groups leave out here, with why (capability.h's
// left_out_of_groups). Returns the exit code.
int print_list(const std::vector<Config>& configs, const MachineCapabilities& machine,
               const std::map<std::string, std::string>& left_out, const RunSettings& settings, const std::string& format,
               const std::optional<AssumedGpus>& assumed);

}  // namespace gpubench
