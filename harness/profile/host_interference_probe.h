#pragma once
#include <optional>

#include "core/device/host_sample.h"
#include "harness/profile/probe.h"

namespace gpubench {

// Samples the machine's CPU counters (core/device/host_sample.h) when the first measured
// step begins and when the run ends, and writes what other processes took in between as
// result["interference"] (core/device/host_interference.h). Warm-up steps are outside the
// window; the steps between the first measured one and the run's end are the measured
// ones. Cost: two samples per run, a few small /proc reads each (a scan of /proc for a
// process group of several ranks); the first lands in the first measured step.
class HostInterferenceProbe final : public Probe {
 public:
  explicit HostInterferenceProbe(OwnCpuScope scope) : scope_(scope) {}

  std::string name() const override { return "interference"; }
  void run_begin(const std::string& config_id) override;
  void step_begin(int step, bool measured) override;
  void run_end() override;
  // Nothing without a measured step: there was no window to judge.
  void write_result(nlohmann::json& result) const override;

 private:
  OwnCpuScope scope_;
  HostState at_start_;
  std::optional<HostSample> begin_, end_;
};

}  // namespace gpubench
