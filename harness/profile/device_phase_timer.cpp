#include "harness/profile/device_phase_timer.h"

#include "harness/profile/phase_timer.h"

namespace gpubench {

void DevicePhaseTimer::step_begin(int, bool measured) {
  collect(/*wait=*/false);
  in_measured_step_ = measured;
  if (!measured) return;
  current_ = StepMarks{};
  current_.begin = clock_->record();
}

void DevicePhaseTimer::phase_begin(Phase) {
  if (in_measured_step_) phase_begin_ = clock_->record();
}

void DevicePhaseTimer::phase_end(Phase phase) {
  if (in_measured_step_) current_.phases.push_back({phase, {phase_begin_, clock_->record()}});
}

void DevicePhaseTimer::step_end(int, bool measured) {
  if (!measured || !in_measured_step_) return;
  in_measured_step_ = false;
  current_.end = clock_->record();
  queued_.push_back(std::move(current_));
}

void DevicePhaseTimer::run_end() { collect(/*wait=*/true); }

// Oldest first: the device passes the marks in the order they were recorded.
void DevicePhaseTimer::collect(bool wait) {
  while (!queued_.empty()) {
    StepMarks& step = queued_.front();
    if (wait)
      clock_->wait(step.end);
    else if (!clock_->passed(step.end))
      return;
    std::array<double, kPhaseCount> phases{};
    for (const auto& [phase, marks] : step.phases) {
      phases[static_cast<std::size_t>(phase)] += clock_->elapsed_ms(marks.first, marks.second);
      clock_->release(marks.first);
      clock_->release(marks.second);
    }
    step_ms_.push_back(clock_->elapsed_ms(step.begin, step.end));
    for (std::size_t i = 0; i < kPhaseCount; ++i) phase_ms_[i].push_back(phases[i]);
    clock_->release(step.begin);
    clock_->release(step.end);
    queued_.pop_front();
  }
}

void DevicePhaseTimer::write_result(nlohmann::json& result) const {
  nlohmann::json step;
  result["device_phases"] = phase_breakdown_json(step_ms_, phase_ms_, step);
  result["device_step_ms"] = step;
}

}  // namespace gpubench
