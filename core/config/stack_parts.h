#pragma once
// A config as a stack of parts on top of the plain config of its workload and device
// (fp32, pinned host memory on cuda, one process, no technique): what an ablation takes
// away or adds one at a time, and what a comparison removes to find a row's baseline.
#include <string>
#include <vector>

#include "core/config/config.h"

namespace gpubench {

// The plain config every stack of `workload` on `device` is measured against.
Config plain_config(const std::string& workload, DeviceKind device);

// The parts of `config`'s stack, each as the id spells it: its precision unless fp32
// ("amp-bf16", "fp8", ...), then its technique segments ("ddp-2", "acc4", "adam-fused",
// "channels-last", "ckpt", "graph"), a graph's fused Adam listed although its id omits it.
// Host memory is not a part: pageable is measured against pinned by comparisons alone.
std::vector<std::string> stack_parts(const Config& config);

// `config` without `part`: a precision goes back to fp32, except fp8, which is bf16
// autocast plus FP8 matmuls and goes back to amp-bf16; a technique is switched off
// (graph off leaves its fused Adam, eager: what graph_vs_eager compares). A part the
// config does not hold, or one it cannot drop (a graph's fused Adam), leaves it as it is.
Config without_part(Config config, const std::string& part);

// `config` with `part` added (a precision replaces the config's). Throws UsageError for a
// word that is no part.
Config with_part(Config config, const std::string& part);

}  // namespace gpubench
