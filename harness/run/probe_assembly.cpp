#include "harness/run/probe_assembly.h"

#include "harness/profile/profile_steps_range.h"
#include "harness/profile/host_interference_probe.h"
#include "harness/profile/leveled_probe.h"
#include "harness/profile/memory_sampler.h"
#include "harness/profile/nvtx_probe.h"

namespace gpubench {

ConfigProbes assemble_probes(const Config& config, const RunSettings& settings, ExecutionPlan& plan,
                             const std::optional<OverheadSchedule>& overhead) {
  ConfigProbes probes;
  std::shared_ptr<LeveledProbe> leveled;
  if (overhead) {
    leveled = std::make_shared<LeveledProbe>(*overhead);
    probes.cost = std::make_shared<ProbeCostMeter>(leveled);
    probes.all.add(probes.cost);
  }
  const auto add = [&](std::shared_ptr<Probe> probe, InstrumentationLevel level,
                       std::function<void(bool)> set_active = {}) {
    if (leveled)
      leveled->add(std::move(probe), level, std::move(set_active));
    else
      probes.all.add(std::move(probe));
  };
  if (!settings.profile_steps.empty())
    add(std::make_shared<ProfileStepsRange>(parse_profile_steps(settings.profile_steps)), InstrumentationLevel::Timers);
  // Before the timer: its first sample (once per run) stays out of the timed step. A
  // config's ranks share a process group, and count as the config's own CPU together.
  add(std::make_shared<HostInterferenceProbe>(config.multi_rank() ? OwnCpuScope::ProcessGroup : OwnCpuScope::Process),
      InstrumentationLevel::Timers);
  probes.timer = std::make_shared<PhaseTimer>();
  add(probes.timer, InstrumentationLevel::Timers);
  // NVTX costs a few ns per range without a tool attached, so it is always on: any run
  // can be opened in Nsight Systems.
  add(std::make_shared<NvtxProbe>(), InstrumentationLevel::Timers);
  add(std::make_shared<MemorySampler>(plan.device_memory_stats), InstrumentationLevel::Timers);
  if (!settings.trace_path.empty() || !settings.hta_dir.empty()) {
    probes.trace = std::make_shared<TraceProbe>();
    add(probes.trace, InstrumentationLevel::Timers);
  }
  for (auto& probe : plan.probes) add(probe, InstrumentationLevel::Timers);
  if (config.device == DeviceKind::Cuda && settings.cupti) {
    probes.cupti = std::make_shared<CuptiCollector>();
    CuptiCollector* cupti = probes.cupti.get();
    add(probes.cupti, InstrumentationLevel::Cupti, [cupti](bool active) { cupti->set_active(active); });
  }
  return probes;
}

}  // namespace gpubench
