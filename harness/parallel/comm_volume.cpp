#include "harness/parallel/comm_volume.h"

namespace gpubench {
namespace {

// nccl-tests' bus factor of a collective over n ranks.
double bus_factor(const std::string& kind, double n) {
  if (n <= 1) return 0;
  return kind == "all_reduce" ? 2 * (n - 1) / n : (n - 1) / n;
}

}  // namespace

double theory_bus_bytes(const Config& config, double parameter_bytes, double kept_for_backward_bytes) {
  const double n = config.world_size;
  if (n <= 1 || !config.multi_rank()) return 0;
  const double share = (n - 1) / n * parameter_bytes;
  const double k = config.accumulate;
  switch (config.parallel) {
    case ParallelMode::Ddp:
    case ParallelMode::Zero1: return 2 * share;
    case ParallelMode::Zero2: return (k + 1) * share;
    case ParallelMode::Fsdp: return k * (3 * parameter_bytes - kept_for_backward_bytes) * (n - 1) / n;
    default: return 0;
  }
}

nlohmann::json comm_volume_json(const nlohmann::json& per_kind, const Config& config, double parameter_bytes,
                                double kept_for_backward_bytes) {
  nlohmann::json kinds = nlohmann::json::object();
  double bus = 0;
  for (const auto& [kind, entry] : per_kind.items()) {
    const double bytes = entry.value("bytes", 0.0);
    const double kind_bus = bytes * bus_factor(kind, config.world_size);
    kinds[kind] = {{"count", entry.value("count", 0)}, {"bytes", bytes}, {"bus_bytes", kind_bus}};
    bus += kind_bus;
  }
  const double theory = theory_bus_bytes(config, parameter_bytes, kept_for_backward_bytes);
  Config ddp = config;
  ddp.parallel = ParallelMode::Ddp;
  const double ddp_theory = theory_bus_bytes(ddp, parameter_bytes);
  return {{"per_kind", kinds},
          {"bus_bytes", bus},
          {"theory_bus_bytes", theory},
          {"measured_over_theory", theory > 0 ? nlohmann::json(bus / theory) : nlohmann::json()},
          {"theory_over_ddp", ddp_theory > 0 ? nlohmann::json(theory / ddp_theory) : nlohmann::json()},
          {"kept_for_backward_bytes", kept_for_backward_bytes},
          {"convention",
           "per rank and optimizer step; sizes as nccl-tests counts them, bus bytes = size x 2(N-1)/N for all-reduce, "
           "x (N-1)/N for all-gather and reduce-scatter; theory from the trainable parameters' bytes (padding and "
           "buffers not counted), fsdp's less what it keeps gathered for backward (the root and last units)"}};
}

}  // namespace gpubench
