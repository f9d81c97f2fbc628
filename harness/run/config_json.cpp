#include "harness/run/config_json.h"

namespace gpubench {

nlohmann::json config_json(const Config& config) {
  return {{"workload", config.workload},
          {"device", to_string(config.device)},
          {"precision", to_string(config.precision)},
          {"host_memory", to_string(config.host_memory)},
          {"parallel", to_string(config.parallel)},
          {"world_size", config.world_size},
          {"expert_parallel", config.expert_parallel},
          {"accumulate", config.accumulate},
          {"techniques", config.technique_segments()},
          {"adam_kernel", to_string(config.adam_kernel())}};
}

}  // namespace gpubench
