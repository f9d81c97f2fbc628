#pragma once
// Was the machine quiet while a config measured its steps? From two HostSamples (the first
// measured step's start, the run's end) and the state at the start, the row's
// "interference" object (docs/measurement.md, "Was the machine quiet"):
//   window_s            the span between the two samples
//   machine_cpus        online CPUs
//   own_cpu_counts      "process" or "process_group" (OwnCpuScope), own_processes: how many
//   own_cpu_share       the config's own CPU time over the machine's CPU time in the window
//   other_cpu_share     the machine's busy time (/proc/stat) less the config's own, over the
//                       same capacity: what every other process (and the kernel for them) took
//   steal_share         time the hypervisor gave other guests, over the same capacity
//   load_1min_at_start, cpu_governor, cpu0_mhz   the state when the steps started
//   cpu_pressure, memory_pressure   PSI "some": avg10 at the start (percent) and the share of
//                       the window in which some task stalled (own tasks included)
//   thresholds, judged (the window long enough and /proc/stat read), disturbed, warning
// A figure that cannot be read is null; shares are clamped to [0, 1], as the two clocks
// (the kernel's per-tick accounting and getrusage's) disagree by a tick or two.
#include <nlohmann/json.hpp>

#include "core/device/host_sample.h"

namespace gpubench {

// Past these the row is disturbed: a quarter of the machine is a core of 4 taken away, or
// most of one of 2; a tenth stolen is a VM whose host is overcommitted. A shorter window
// than kMinJudgedWindowS holds too few of /proc/stat's ticks (100 a second a CPU) to tell.
constexpr double kOtherCpuShareLimit = 0.25;
constexpr double kStealShareLimit = 0.10;
constexpr double kMinJudgedWindowS = 0.25;

nlohmann::json interference_json(const HostSample& begin, const HostSample& end, const HostState& at_start,
                                 OwnCpuScope scope);

}  // namespace gpubench
