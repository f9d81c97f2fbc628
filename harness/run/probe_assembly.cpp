#include "run/probe_assembly.h"

#include "profile/cuda_profiler_range.h"
#include "profile/cupti_collector.h"
#include "profile/memory_sampler.h"
#include "profile/nvtx_probe.h"

namespace gpubench {

ConfigProbes assemble_probes(const Config& config, const RunSettings& settings, ExecutionPlan& plan) {
  ConfigProbes probes;
  if (!settings.profile_steps.empty())
    probes.all.add(std::make_shared<CudaProfilerRange>(parse_profile_steps(settings.profile_steps)));
  probes.timer = std::make_shared<PhaseTimer>();
  probes.all.add(probes.timer);
  // NVTX costs a few ns per range without a tool attached, so it is always on: any run
  // can be opened in Nsight Systems.
  probes.all.add(std::make_shared<NvtxProbe>());
  probes.all.add(std::make_shared<MemorySampler>(plan.device_memory_stats));
  if (!settings.trace_path.empty()) {
    probes.trace = std::make_shared<TraceProbe>();
    probes.all.add(probes.trace);
  }
  for (auto& probe : plan.probes) probes.all.add(probe);
  if (config.device == DeviceKind::Cuda && settings.cupti) probes.all.add(std::make_shared<CuptiCollector>());
  return probes;
}

}  // namespace gpubench
