#pragma once
#include <string>

namespace gpubench {

// How instrumented a step of an `--overhead` run is. Each level adds probes to the one
// below: Bare runs none (a plain loop: no sync inside the step, the loss read a step late);
// Timers adds the always-on probes (wall timers, the device's CUDA event marks, NVTX
// ranges, memory samples), and with --sync-phases a device sync at the end of every phase,
// so that run's Timers level carries what the strict mode costs; Cupti adds CUPTI activity
// collection (CUDA configs only).
enum class InstrumentationLevel { Bare = 0, Timers = 1, Cupti = 2 };

const char* to_string(InstrumentationLevel level);  // "bare", "timers_nvtx", "cupti"

// Which level each step of an `--overhead` run gets. Warm-up steps run fully
// instrumented (start-up costs, CUPTI's included, stay out of the measurement); measured
// steps cycle bare, timers[, cupti] in segments of `segment_steps`, so slow drift of the
// machine (thermal, other load) hits every level alike. The first `switch_steps` of each
// segment are left out of the comparison.
struct OverheadSchedule {
  int warmup_steps = 0;
  int segment_steps = 5;
  int levels = 2;  // 2: bare + timers; 3: + CUPTI
  // Steps at the start of each segment left out: the first pays for the switch (CUPTI
  // re-enabled, a flush, cold caches); a switch that synchronises the device empties the
  // queue the late loss read keeps one step deep, so the second step runs short.
  int switch_steps = 2;

  InstrumentationLevel level_at(int step) const;
  bool in_switch(int step) const;  // false for warm-up steps
  // Measured steps for `rounds` full cycles through every level.
  int steps_for_rounds(int rounds) const { return rounds * levels * segment_steps; }
};

}  // namespace gpubench
