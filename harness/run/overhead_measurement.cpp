#include "harness/run/overhead_measurement.h"

#include <algorithm>

#include "core/stats/relative_shift.h"
#include "core/stats/summary.h"

namespace gpubench {
namespace {

constexpr double kConfidence = 0.95;

const char* judge(const RelativeShift& shift, double target) {
  if (shift.high <= target) return "within_target";
  if (shift.low > target) return "over_target";
  return "undetermined";
}

nlohmann::json shift_json(const RelativeShift& shift) {
  return {{"estimate", shift.estimate}, {"ci95", {shift.low, shift.high}}};
}

}  // namespace

OverheadSchedule overhead_schedule(const Config& config, const RunSettings& settings, int warmup_steps) {
  OverheadSchedule schedule;
  schedule.warmup_steps = warmup_steps;
  schedule.levels = config.device == DeviceKind::Cuda && settings.cupti ? 3 : 2;
  return schedule;
}

StoppingRule overhead_stopping(StoppingRule rule, const OverheadSchedule& schedule) {
  if (rule.exact) return rule;
  rule.min_steps = std::max(rule.min_steps, schedule.steps_for_rounds(kMinOverheadRounds));
  rule.max_steps = std::max(rule.max_steps, rule.min_steps);
  rule.target_relative_ci = 0;
  return rule;
}

namespace {

// Per level, the values of the measured steps (index i is step warmup + i) that are not
// the first of their segment.
std::vector<std::vector<double>> split_by_level(const OverheadSchedule& schedule, const std::vector<double>& values) {
  std::vector<std::vector<double>> by_level(static_cast<std::size_t>(schedule.levels));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const int step = schedule.warmup_steps + static_cast<int>(i);
    if (!schedule.in_switch(step)) by_level[static_cast<std::size_t>(schedule.level_at(step))].push_back(values[i]);
  }
  return by_level;
}

}  // namespace

nlohmann::json overhead_json(const OverheadSchedule& schedule, const std::vector<double>& step_ms,
                             const std::vector<double>& probe_us, const std::string& cupti_note) {
  const auto by_level = split_by_level(schedule, step_ms);
  const auto probe_us_by_level = split_by_level(schedule, probe_us);
  std::size_t excluded = step_ms.size();  // what split_by_level left out
  for (const auto& steps : by_level) excluded -= steps.size();
  nlohmann::json out = {{"segment_steps", schedule.segment_steps},
                        {"excluded_steps", excluded},
                        {"excluded_why", "the first steps of each segment: the first pays for the switch of level, the second for a device queue a synchronising switch emptied"},
                        {"confidence", kConfidence},
                        {"levels", nlohmann::json::array()}};
  const std::vector<double>& bare = by_level[0];
  for (int level = 0; level < schedule.levels; ++level) {
    const auto& steps = by_level[static_cast<std::size_t>(level)];
    const auto kind = static_cast<InstrumentationLevel>(level);
    nlohmann::json entry = {{"name", to_string(kind)},
                            {"steps", steps.size()},
                            {"median_step_ms", summarize(steps).median}};
    const auto& probe_us_here = probe_us_by_level[static_cast<std::size_t>(level)];
    if (!probe_us_here.empty() && !steps.empty()) {
      // The probes' host time per step, clocked around their calls: a direct figure the
      // step-time comparison below cannot resolve on a noisy machine.
      const double us = summarize(probe_us_here).median;
      entry["probe_cpu_us_per_step"] = us;
      entry["probe_cpu_share_of_step"] = us / 1000.0 / summarize(steps).median;
    }
    const std::vector<double>& below = by_level[static_cast<std::size_t>(std::max(level - 1, 0))];
    if (level > 0 && !steps.empty() && !below.empty() && !bare.empty()) {
      // Each level is judged on what it adds to the level below (CUPTI on top of the
      // timers), and also shown against bare steps (the whole instrumentation's cost).
      const double target = kind == InstrumentationLevel::Cupti ? kCuptiOverheadTarget : kTimersOverheadTarget;
      const RelativeShift added = relative_shift(below, steps, kConfidence);
      entry["vs"] = to_string(static_cast<InstrumentationLevel>(level - 1));
      entry["overhead"] = shift_json(added);
      entry["overhead_vs_bare"] = shift_json(relative_shift(bare, steps, kConfidence));
      entry["target"] = target;
      entry["judgement"] = judge(added, target);
    }
    out["levels"].push_back(std::move(entry));
  }
  if (!cupti_note.empty()) out["cupti_note"] = cupti_note;
  return out;
}

}  // namespace gpubench
