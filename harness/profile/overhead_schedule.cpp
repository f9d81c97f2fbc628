#include "profile/overhead_schedule.h"

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

bool OverheadSchedule::first_of_segment(int step) const {
  return step >= warmup_steps && (step - warmup_steps) % segment_steps == 0;
}

}  // namespace gpubench
