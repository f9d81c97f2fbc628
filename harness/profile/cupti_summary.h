#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/profile/cupti_records.h"
#include "harness/profile/phase.h"
#include "core/stats/summary.h"

namespace gpubench {

// Host-side time windows on the records' clock, for measured steps only.
struct StepWindow {
  int step = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
};
struct PhaseWindow {
  int step = 0;
  Phase phase = Phase::Data;
  std::uint64_t start_ns = 0, end_ns = 0;
};

struct KernelStat {
  std::string name;
  std::size_t count = 0;
  double total_ms = 0, mean_us = 0;
};

struct CopyStat {
  std::size_t count = 0;
  std::uint64_t bytes = 0;
  double time_ms = 0;      // sum of copy durations
  double gb_per_s = 0;     // bytes / time (1 GB = 1e9 bytes); 0 without timed copies
  std::size_t pinned = 0;  // copies whose host side was pinned
};

struct PhaseKernelTime {
  double total_ms = 0;  // summed over measured steps
  Summary per_step_ms;  // one sample per measured step (0 where none ran)
};

// What CUPTI saw during the measured steps. Activity belongs to the step and phase whose
// host window its launch (the runtime or driver call with its correlation id) falls in: by
// default no phase waits for the device, so a step's kernels run while the host queues the
// next one. Activity without a launch record falls back to its start time (clipped to the
// windows, exact under --sync-phases). Warm-up and between-step work is left out.
struct CuptiSummary {
  std::size_t measured_steps = 0;
  // Per step: union of its kernels' intervals / step wall time (the loop's period), at
  // most 1. Kernels only: copies and memsets are reported separately.
  Summary gpu_busy_share;
  double gpu_busy_share_overall = 0;  // total busy time / total step time
  Summary kernels_per_step;
  double kernel_ms_total = 0;  // summed kernel durations, clipped to steps
  // Summed kernel time by the phase that launched it; `outside_phases` is what was
  // launched between phases. Concurrent kernels add up, so this can exceed wall time.
  std::array<PhaseKernelTime, kPhaseCount> kernel_ms_by_phase{};
  PhaseKernelTime kernel_ms_outside_phases;
  std::vector<KernelStat> top_kernels;  // by total time, then name; at most top_k
  std::map<MemcpyKind, CopyStat> copies;
  std::size_t memset_count = 0;
  std::uint64_t memset_bytes = 0;
  // From the last kernel end of step N to the first kernel start of step N+1 (consecutive
  // measured steps that both ran kernels); 0 when they overlap.
  Summary idle_gap_between_steps_us;
  // Bookkeeping, so a reader can tell how much was left out.
  std::size_t kernels_total = 0, kernels_in_steps = 0;
  // Kernels in steps with no runtime or driver launch record (a dropped record): placed by
  // start time, which is right only under --sync-phases.
  std::size_t kernels_by_start_time = 0;
  std::size_t runtime_calls_in_steps = 0, driver_calls_in_steps = 0;
  std::size_t untimed_records = 0;  // CUPTI could not time them (start == end == 0)
  std::uint64_t dropped_records = 0;
};

CuptiSummary summarize_cupti(const CuptiRecords& records, const std::vector<StepWindow>& steps,
                             const std::vector<PhaseWindow>& phases, std::size_t top_k = 10);

// The report's form (without "status"): keys carry their units.
nlohmann::json to_json(const CuptiSummary& summary);

}  // namespace gpubench
