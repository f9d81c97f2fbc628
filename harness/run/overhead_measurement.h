#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/config.h"
#include "core/config/run_settings.h"
#include "harness/profile/overhead_schedule.h"
#include "core/stats/stopping_rule.h"

namespace gpubench {

// `gpubench --overhead`: one training run per config whose measured steps alternate
// between instrumentation levels (see OverheadSchedule), so the harness's own cost is
// measured on the same model, data and machine state as the numbers it reports.

// The targets: the always-on probes may cost at most 1% of a step, CUPTI 3% more.
inline constexpr double kTimersOverheadTarget = 0.01;
inline constexpr double kCuptiOverheadTarget = 0.03;
// Full cycles through the levels a config measures at least (more when budget allows).
inline constexpr int kMinOverheadRounds = 4;

// Three levels on CUDA configs with CUPTI on, two otherwise.
OverheadSchedule overhead_schedule(const Config& config, const RunSettings& settings, int warmup_steps);

// The preset's rule made fit for alternation: at least kMinOverheadRounds full rounds,
// no noise criterion (the steps mix levels on purpose), the preset's budget and maximum.
// An exact --steps count is kept as given.
StoppingRule overhead_stopping(StoppingRule rule, const OverheadSchedule& schedule);

// result["overhead"]: per level its steps and median step time; per instrumented level
// its cost over the level below as a Hodges-Lehmann ratio with a 95% CI, its cost over
// bare steps, and whether the interval shows it within its target ("within_target"),
// above it ("over_target"), or cannot tell ("undetermined": too noisy, measure longer).
// Per level also the probes' own host time per step (median µs, and as a share of the
// level's median step) from `probe_us` (ProbeCostMeter, indexed as step_ms).
// `step_ms` is TrainingRun::step_ms; first-of-segment steps are left out.
nlohmann::json overhead_json(const OverheadSchedule& schedule, const std::vector<double>& step_ms,
                             const std::vector<double>& probe_us, const std::string& cupti_note);

}  // namespace gpubench
