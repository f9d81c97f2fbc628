#include "harness/profile/probe_cost_meter.h"

namespace gpubench {

template <class Call>
void ProbeCostMeter::timed(Call&& call) {
  const auto start = std::chrono::steady_clock::now();
  call();
  in_step_ += std::chrono::steady_clock::now() - start;
}

void ProbeCostMeter::step_begin(int step, bool measured) {
  in_step_ = {};
  timed([&] { inner_->step_begin(step, measured); });
}

void ProbeCostMeter::step_end(int step, bool measured) {
  timed([&] { inner_->step_end(step, measured); });
  if (measured) measured_step_us_.push_back(std::chrono::duration<double, std::micro>(in_step_).count());
}

void ProbeCostMeter::phase_begin(Phase phase) {
  timed([&] { inner_->phase_begin(phase); });
}

void ProbeCostMeter::phase_end(Phase phase) {
  timed([&] { inner_->phase_end(phase); });
}

}  // namespace gpubench
