#include "harness/profile/host_interference_probe.h"

#include "core/device/host_interference.h"

namespace gpubench {

void HostInterferenceProbe::run_begin(const std::string&) {
  begin_.reset();
  end_.reset();
  // The load average and cpufreq move slowly: read before the steps, where it costs nothing.
  at_start_ = read_host_state();
}

void HostInterferenceProbe::step_begin(int, bool measured) {
  if (measured && !begin_) begin_ = sample_host(scope_);
}

void HostInterferenceProbe::run_end() {
  if (begin_) end_ = sample_host(scope_);
}

void HostInterferenceProbe::write_result(nlohmann::json& result) const {
  if (begin_ && end_) result["interference"] = interference_json(*begin_, *end_, at_start_, scope_);
}

}  // namespace gpubench
