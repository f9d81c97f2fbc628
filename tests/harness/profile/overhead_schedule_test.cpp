#include "harness/profile/overhead_schedule.h"

#include <gtest/gtest.h>

#include <string>

namespace gpubench {
namespace {

std::string levels_of(const OverheadSchedule& schedule, int steps) {
  std::string out;
  for (int step = 0; step < steps; ++step) out += std::to_string(static_cast<int>(schedule.level_at(step)));
  return out;
}

TEST(OverheadSchedule, WarmupRunsFullyInstrumentedThenLevelsCycleInSegments) {
  OverheadSchedule schedule;
  schedule.warmup_steps = 2;
  schedule.segment_steps = 3;
  schedule.levels = 3;
  EXPECT_EQ(levels_of(schedule, 2 + 3 * 3 * 2), "22" "000111222" "000111222");
  schedule.levels = 2;
  EXPECT_EQ(levels_of(schedule, 2 + 12), "11" "000111000111");
}

TEST(OverheadSchedule, FirstStepsOfEachSegmentAreMarkedNeverAWarmupStep) {
  OverheadSchedule schedule;
  schedule.warmup_steps = 1;
  schedule.segment_steps = 3;
  std::string marks;
  for (int step = 0; step < 8; ++step) marks += schedule.in_switch(step) ? 'x' : '.';
  EXPECT_EQ(marks, ".xx.xx.x");
}

TEST(OverheadSchedule, RoundsCountEveryLevelsSegments) {
  OverheadSchedule schedule;
  schedule.segment_steps = 5;
  schedule.levels = 3;
  EXPECT_EQ(schedule.steps_for_rounds(4), 60);
}

TEST(OverheadSchedule, LevelNamesAreTheReportsKeys) {
  EXPECT_STREQ(to_string(InstrumentationLevel::Bare), "bare");
  EXPECT_STREQ(to_string(InstrumentationLevel::Timers), "timers_nvtx");
  EXPECT_STREQ(to_string(InstrumentationLevel::Cupti), "cupti");
}

}  // namespace
}  // namespace gpubench
