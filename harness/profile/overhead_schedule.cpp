#include "harness/profile/overhead_schedule.h"

#include <algorithm>

namespace gpubench {

const char* to_string(InstrumentationLevel level) {
  switch (level) {
    case InstrumentationLevel::Bare: return "bare";
    case InstrumentationLevel::Timers: return "timers_nvtx";
    case InstrumentationLevel::Cupti: return "cupti";
  }
  return "unknown";
}

InstrumentationLevel OverheadSchedule::level_at(int step) const {
  if (step < warmup_steps) return static_cast<InstrumentationLevel>(levels - 1);
  const int segment = (step - warmup_steps) / segment_steps;
  return static_cast<InstrumentationLevel>(segment % levels);
}

bool OverheadSchedule::in_switch(int step) const {
  // Every segment keeps at least its last step, however short it is.
  return step >= warmup_steps && (step - warmup_steps) % segment_steps < std::min(switch_steps, segment_steps - 1);
}

}  // namespace gpubench
