#pragma once
#include <memory>
#include <optional>

#include "core/config/config.h"
#include "core/config/run_settings.h"
#include "harness/profile/cupti_collector.h"
#include "harness/profile/overhead_schedule.h"
#include "harness/profile/phase_timer.h"
#include "harness/profile/probe.h"
#include "harness/profile/probe_cost_meter.h"
#include "harness/profile/trace_probe.h"
#include "harness/run/execution_plan.h"

namespace gpubench {

// The probes one config runs with, in the order the ProbeSet calls them.
struct ConfigProbes {
  ProbeSet all;
  std::shared_ptr<PhaseTimer> timer;      // always: step and phase times
  std::shared_ptr<TraceProbe> trace;      // only with --trace
  std::shared_ptr<CuptiCollector> cupti;  // CUDA configs with CUPTI on
  std::shared_ptr<ProbeCostMeter> cost;   // only with --overhead: around every probe
};

// profiler range (--profile-steps) first, so its start/stop cost stays outside the timed
// steps and the capture encloses the NVTX ranges; then the wall timer, NVTX, memory,
// trace, the plan's device probes and CUPTI (CUDA only).
// With `overhead` (--overhead, which the CLI keeps apart from --trace and
// --profile-steps) the same probes sit in a LeveledProbe: timer, NVTX, memory and the
// plan's probes at the Timers level, CUPTI at the Cupti level (paused below it), and a
// ProbeCostMeter around the LeveledProbe clocks what they cost the host each step.
ConfigProbes assemble_probes(const Config& config, const RunSettings& settings, ExecutionPlan& plan,
                             const std::optional<OverheadSchedule>& overhead = std::nullopt);

}  // namespace gpubench
