#pragma once
#include <chrono>
#include <memory>
#include <vector>

#include "harness/profile/probe.h"

namespace gpubench {

// Times every call into the probe it wraps and sums them per measured step: the probes'
// own CPU cost per step, for --overhead. Step-time differences between instrumented and
// bare steps hide a cost of microseconds under the machine's noise (±10% of a step on a
// shared 2-core VM); a clock around the calls does not. It counts what the probes do on
// the host (clock reads, NVTX pushes, RSS reads, CUPTI buffer handling), not the device
// syncs the Trainer adds before phase ends, and includes its own two clock reads per call
// (tens of ns each).
class ProbeCostMeter final : public Probe {
 public:
  explicit ProbeCostMeter(std::shared_ptr<Probe> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return "probe_cost_meter"; }
  void run_begin(const std::string& config_id) override { inner_->run_begin(config_id); }
  void run_end() override { inner_->run_end(); }
  void step_begin(int step, bool measured) override;
  void step_end(int step, bool measured) override;
  void phase_begin(Phase phase) override;
  void phase_end(Phase phase) override;
  void write_result(nlohmann::json& result) const override { inner_->write_result(result); }

  // Microseconds inside the probes, one entry per measured step in order (as
  // TrainingRun::step_ms).
  const std::vector<double>& measured_step_us() const { return measured_step_us_; }

 private:
  template <class Call>
  void timed(Call&& call);

  std::shared_ptr<Probe> inner_;
  std::chrono::steady_clock::duration in_step_{};
  std::vector<double> measured_step_us_;
};

}  // namespace gpubench
