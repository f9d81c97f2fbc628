#pragma once
#include <array>
#include <chrono>
#include <vector>

#include "profile/probe.h"

namespace gpubench {

// Wall-clock timer of steps and phases (steady_clock). Records measured steps only.
// The Trainer synchronises the device before each phase_end, so on CUDA these are the
// phases' real durations, not their launch times.
class PhaseTimer final : public Probe {
 public:
  std::string name() const override { return "wall_timer"; }
  void step_begin(int step, bool measured) override;
  void step_end(int step, bool measured) override;
  void phase_begin(Phase phase) override;
  void phase_end(Phase phase) override;
  void write_result(nlohmann::json& result) const override;

  // Per measured step, milliseconds.
  const std::vector<double>& step_ms() const { return step_ms_; }
  const std::vector<double>& phase_ms(Phase phase) const { return phase_ms_[static_cast<std::size_t>(phase)]; }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point step_start_{}, phase_start_{};
  std::array<double, kPhaseCount> current_{};
  std::vector<double> step_ms_;
  std::array<std::vector<double>, kPhaseCount> phase_ms_;
};

}  // namespace gpubench
