#pragma once
#include <memory>

#include "config/config.h"
#include "config/run_settings.h"
#include "profile/phase_timer.h"
#include "profile/probe.h"
#include "profile/trace_probe.h"
#include "run/execution_plan.h"

namespace gpubench {

// The probes one config runs with, in the order the ProbeSet calls them.
struct ConfigProbes {
  ProbeSet all;
  std::shared_ptr<PhaseTimer> timer;  // always: step and phase times
  std::shared_ptr<TraceProbe> trace;  // only with --trace
};

// profiler range (--profile-steps) first, so its start/stop cost stays outside the timed
// steps and the capture encloses the NVTX ranges; then the wall timer, NVTX, memory,
// trace, the plan's device probes and CUPTI (CUDA only).
ConfigProbes assemble_probes(const Config& config, const RunSettings& settings, ExecutionPlan& plan);

}  // namespace gpubench
