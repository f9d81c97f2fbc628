#include "harness/profile/phase_timer.h"

#include <algorithm>

#include "core/stats/summary.h"
#include "core/stats/summary_json.h"

namespace gpubench {
namespace {
double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}
}  // namespace

void PhaseTimer::step_begin(int, bool) {
  current_.fill(0);
  step_start_ = Clock::now();
}

void PhaseTimer::step_end(int, bool measured) {
  const auto now = Clock::now();
  if (!measured) return;
  step_ms_.push_back(ms_between(step_start_, now));
  for (std::size_t i = 0; i < kPhaseCount; ++i) phase_ms_[i].push_back(current_[i]);
}

void PhaseTimer::phase_begin(Phase) { phase_start_ = Clock::now(); }

void PhaseTimer::phase_end(Phase phase) {
  current_[static_cast<std::size_t>(phase)] += ms_between(phase_start_, Clock::now());
}

nlohmann::json phase_breakdown_json(const std::vector<double>& step_ms,
                                    const std::array<std::vector<double>, kPhaseCount>& phase_ms,
                                    nlohmann::json& step_summary) {
  const Summary step = summarize(step_ms);
  step_summary = to_json(step);
  nlohmann::json phases = nlohmann::json::object();
  double phase_total = 0;
  for (Phase phase : kAllPhases) phase_total += summarize(phase_ms[static_cast<std::size_t>(phase)]).median;
  for (Phase phase : kAllPhases) {
    const Summary s = summarize(phase_ms[static_cast<std::size_t>(phase)]);
    phases[phase_name(phase)] = {{"median_ms", s.median},
                                 {"p10_ms", s.p10},
                                 {"p90_ms", s.p90},
                                 {"share", step.median > 0 ? s.median / step.median : 0}};
  }
  phases["other"] = {{"median_ms", std::max(0.0, step.median - phase_total)},
                     {"share", step.median > 0 ? std::max(0.0, step.median - phase_total) / step.median : 0}};
  return phases;
}

void PhaseTimer::write_result(nlohmann::json& result) const {
  result["phases"] = phase_breakdown_json(step_ms_, phase_ms_, result["step_ms"]);
  result["samples"]["step_ms"] = step_ms_;
}

}  // namespace gpubench
