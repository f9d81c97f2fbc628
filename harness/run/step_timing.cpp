#include "harness/run/step_timing.h"

namespace gpubench {

nlohmann::json timing_json(const Config& config, const RunSettings& settings) {
  const char* loss_read = "one step late: step N's loss is read after step N+1 is queued (a non-finite one fails the "
                          "config, naming step N)";
  if (config.device == DeviceKind::Cpu)
    return {{"method", "host"},
            {"loss_read", loss_read},
            {"phases", "host wall clock per phase: a CPU phase's work is done when it returns"}};
  nlohmann::json timing = {
      {"loss_read", loss_read},
      {"device_phases", "CUDA events at every step and phase boundary on device 0's compute stream: each phase's span on "
                        "the GPU's timeline, stalls waiting for the host included; the report's phase shares use these"}};
  if (settings.sync_phases) {
    timing["method"] = "sync_phases";
    timing["phases"] = "host wall clock per phase, each phase ending with a sync of the compute streams (--sync-phases): "
                       "exact attribution, but the CPU cannot run ahead of the GPU, so short steps run slower than in a "
                       "real loop";
  } else {
    timing["method"] = "events";
    timing["phases"] = "host wall clock per phase: the time to queue it (no sync inside a step, as a Python loop); a "
                       "step's time is the loop's period";
  }
  return timing;
}

}  // namespace gpubench
