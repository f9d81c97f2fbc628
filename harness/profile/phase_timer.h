#pragma once
#include <array>
#include <chrono>
#include <vector>

#include "harness/profile/probe.h"

namespace gpubench {

// {"data": {median_ms, p10_ms, p90_ms, share}, ..., "other": {median_ms, share}}: each
// phase's per-step times, shares of the step's median, the remainder (probes' own cost,
// waiting for the device outside every phase) as "other". `step_summary` gets the step's
// summary in the report's form.
nlohmann::json phase_breakdown_json(const std::vector<double>& step_ms,
                                    const std::array<std::vector<double>, kPhaseCount>& phase_ms,
                                    nlohmann::json& step_summary);

// Wall-clock timer of steps and phases (steady_clock): the host's time. Records measured
// steps only. With --sync-phases the Trainer synchronises the device before each
// phase_end, so on CUDA these are the phases' real durations; by default no phase waits
// and a CUDA phase's wall time is the time to queue it (DevicePhaseTimer has the device's).
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
