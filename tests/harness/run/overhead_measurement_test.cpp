#include "harness/run/overhead_measurement.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace gpubench {
namespace {

// Step times for a schedule: `base_ms` with ±1% uniform noise, times (1 + cost[level]),
// and a 10x slower first step of each segment (the switch, which must be left out).
std::vector<double> synthetic_steps(const OverheadSchedule& schedule, int steps, double base_ms,
                                    const std::vector<double>& cost) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> noise(-0.01, 0.01);
  std::vector<double> out;
  for (int i = 0; i < steps; ++i) {
    const int step = schedule.warmup_steps + i;
    const double level_cost = cost[static_cast<std::size_t>(schedule.level_at(step))];
    out.push_back(base_ms * (1 + level_cost) * (1 + noise(rng)) * (schedule.in_switch(step) ? 10 : 1));
  }
  return out;
}

const nlohmann::json& level(const nlohmann::json& overhead, const std::string& name) {
  for (const auto& entry : overhead["levels"])
    if (entry["name"] == name) return entry;
  throw std::runtime_error("no level " + name);
}

TEST(OverheadMeasurement, CheapTimersAreWithinTargetAndCostlyCuptiIsOver) {
  const OverheadSchedule schedule{2, 5, 3};
  const auto steps = synthetic_steps(schedule, schedule.steps_for_rounds(8), 20.0, {0.0, 0.0, 0.08});
  // The probes' host time: 0.5 us a bare step (the level switch's dispatch), 30 us an
  // instrumented one, 2000 us (a buffer flush) on the first step of each segment.
  std::vector<double> probe_us;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const int step = schedule.warmup_steps + static_cast<int>(i);
    probe_us.push_back(schedule.in_switch(step) ? 2000 : schedule.level_at(step) == InstrumentationLevel::Bare ? 0.5 : 30);
  }
  const nlohmann::json overhead = overhead_json(schedule, steps, probe_us, "");
  EXPECT_EQ(overhead["excluded_steps"], 48) << "the first two of each of 24 segments";
  EXPECT_DOUBLE_EQ(level(overhead, "bare")["probe_cpu_us_per_step"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(level(overhead, "timers_nvtx")["probe_cpu_us_per_step"].get<double>(), 30);
  EXPECT_NEAR(level(overhead, "timers_nvtx")["probe_cpu_share_of_step"].get<double>(), 0.030 / 20.0, 1e-4)
      << "30 us of a ~20 ms step";
  ASSERT_EQ(overhead["levels"].size(), 3u);
  const auto& bare = level(overhead, "bare");
  EXPECT_EQ(bare["steps"], 24);
  EXPECT_NEAR(bare["median_step_ms"].get<double>(), 20.0, 0.2);
  EXPECT_FALSE(bare.contains("overhead"));

  const auto& timers = level(overhead, "timers_nvtx");
  EXPECT_EQ(timers["vs"], "bare");
  EXPECT_NEAR(timers["overhead"]["estimate"].get<double>(), 0.0, 0.005);
  EXPECT_LE(timers["overhead"]["ci95"][0].get<double>(), 0.0);
  EXPECT_GE(timers["overhead"]["ci95"][1].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(timers["target"].get<double>(), kTimersOverheadTarget);
  EXPECT_EQ(timers["judgement"], "within_target");

  const auto& cupti = level(overhead, "cupti");
  EXPECT_EQ(cupti["vs"], "timers_nvtx");
  EXPECT_NEAR(cupti["overhead"]["estimate"].get<double>(), 0.08, 0.01);
  EXPECT_NEAR(cupti["overhead_vs_bare"]["estimate"].get<double>(), 0.08, 0.01);
  EXPECT_EQ(cupti["judgement"], "over_target");
  EXPECT_FALSE(overhead.contains("cupti_note"));
}

TEST(OverheadMeasurement, TooFewStepsToTellIsUndetermined) {
  const OverheadSchedule schedule{0, 2, 2};
  // One kept step per segment, noise of ±1% at exactly the 1% target: the interval straddles it.
  const auto steps = synthetic_steps(schedule, schedule.steps_for_rounds(3), 10.0, {0.0, 0.01});
  const nlohmann::json overhead =
      overhead_json(schedule, steps, {}, "CUPTI traces GPU activity: not measured on a CPU config");
  EXPECT_FALSE(level(overhead, "timers_nvtx").contains("probe_cpu_us_per_step")) << "no meter, no figure";
  EXPECT_EQ(level(overhead, "timers_nvtx")["judgement"], "undetermined");
  EXPECT_EQ(overhead["cupti_note"], "CUPTI traces GPU activity: not measured on a CPU config");
}

TEST(OverheadMeasurement, ScheduleHasACuptiLevelOnlyForCudaWithCuptiOn) {
  RunSettings settings;
  Config cpu;
  cpu.device = DeviceKind::Cpu;
  Config cuda;
  cuda.device = DeviceKind::Cuda;
  EXPECT_EQ(overhead_schedule(cpu, settings, 3).levels, 2);
  EXPECT_EQ(overhead_schedule(cuda, settings, 3).levels, 3);
  EXPECT_EQ(overhead_schedule(cuda, settings, 3).warmup_steps, 3);
  settings.cupti = false;
  EXPECT_EQ(overhead_schedule(cuda, settings, 3).levels, 2);
}

TEST(OverheadMeasurement, StoppingRunsWholeRoundsWithoutTheNoiseCriterionAndKeepsAnExactCount) {
  const OverheadSchedule schedule{0, 5, 2};
  StoppingRule quick{3, 30, 8, 0.02, false};
  const StoppingRule rule = overhead_stopping(quick, schedule);
  EXPECT_EQ(rule.min_steps, schedule.steps_for_rounds(kMinOverheadRounds));
  EXPECT_EQ(rule.max_steps, rule.min_steps);
  EXPECT_LE(rule.target_relative_ci, 0);
  EXPECT_DOUBLE_EQ(rule.budget_s, 8);
  const StoppingRule exact = overhead_stopping({3, 50, 8, 0.02, true}, schedule);
  EXPECT_TRUE(exact.exact);
  EXPECT_EQ(exact.max_steps, 50);
}

}  // namespace
}  // namespace gpubench
