#include "harness/run/checkpoint_plan.h"

#include "harness/run/memory_check.h"
#include "workloads/workload.h"

namespace gpubench {

std::string checkpoint_skip_reason(const Config& config, const RunSettings& settings, const MachineCapabilities& machine,
                                   const std::map<std::string, std::string>& checked) {
  CheckpointPolicy policy = settings.checkpoint_policy;
  if (policy == CheckpointPolicy::Off) return "off (--checkpoint-check off)";
  if (policy == CheckpointPolicy::Auto) {
    const auto parameters = make_workload(config.workload)->declared_parameters();
    policy = parameters && *parameters >= kCheckpointEveryBelowParameters ? CheckpointPolicy::Once : CheckpointPolicy::Every;
  }
  if (const auto done = checked.find(config.workload); policy == CheckpointPolicy::Once && done != checked.end())
    return "once per workload (--checkpoint-check " + to_string(settings.checkpoint_policy) + "): made in " + done->second;
  // Left out here, a later config of the workload that fits may still make it (once).
  if (config.device == DeviceKind::Cuda) {
    const double device_bytes =
        machine.cuda.devices.empty() ? 0 : static_cast<double>(machine.cuda.devices.front().memory_bytes);
    return device_round_trip_refusal(config, settings, device_bytes).value_or("");
  }
  const HostMemoryFit fit = host_memory_fit(config, settings, machine.host_available_bytes, machine.host_available_source);
  return fit.round_trip_refusal.value_or("");
}

}  // namespace gpubench
