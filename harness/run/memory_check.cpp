#include "harness/run/memory_check.h"

#include <fmt/format.h>

#include "harness/run/config_sizes.h"
#include "workloads/workload.h"

namespace gpubench {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

std::optional<MemoryEstimate> estimate_of(const Config& config, const RunSettings& settings) {
  const ResolvedSizes sizes = resolve_sizes(config, settings);
  return make_workload(config.workload)->memory_estimate(config, sizes.batch_size);
}

std::string parts(const MemoryEstimate& e) {
  return fmt::format("weights, gradients and Adam state {:.1f} GiB, activations {:.1f} GiB, logits {:.1f} GiB, "
                     "workspace {:.1f} GiB",
                     e.states / kGiB, e.activations / kGiB, e.logits / kGiB, e.workspace / kGiB);
}

}  // namespace

HostMemoryFit host_memory_fit(const Config& config, const RunSettings& settings, double available_bytes,
                              const std::string& source) {
  if (config.device != DeviceKind::Cpu || available_bytes <= 0) return {};
  const auto estimate = estimate_of(config, settings);
  if (!estimate) return {};
  // DDP ranks are processes of their own on this host, each with the whole model; only
  // rank 0 makes the round trip.
  const double ranks = config.parallel == ParallelMode::Ddp ? config.world_size : 1;
  const double training = ranks * estimate->device_total();
  const std::string available = fmt::format("the {:.1f} GiB available ({})", available_bytes / kGiB, source);
  HostMemoryFit fit;
  if (training > available_bytes) {
    fit.refusal = fmt::format("needs ~{:.1f} GiB of host memory ({}{}), more than {}; a smaller --batch-size or "
                              "--seq-len, or ckpt, may fit",
                              training / kGiB, parts(*estimate),
                              ranks > 1 ? fmt::format(", for each of {} ranks", ranks) : "", available);
  } else if (training + estimate->checkpoint > available_bytes) {
    fit.round_trip_refusal =
        fmt::format("the round trip's second model and optimizer (~{:.1f} GiB) would not fit beside training (~{:.1f} GiB) in {}",
                    estimate->checkpoint / kGiB, training / kGiB, available);
  }
  return fit;
}

std::optional<std::string> device_memory_refusal(const Config& config, const RunSettings& settings, double free_bytes) {
  if (config.device != DeviceKind::Cuda) return std::nullopt;
  const auto estimate = estimate_of(config, settings);
  if (!estimate || estimate->device_total() <= free_bytes) return std::nullopt;
  return fmt::format("does not fit the GPU: needs ~{:.1f} GiB ({}), {:.1f} GiB free on the device; a smaller --batch-size "
                     "or --seq-len, ckpt or accK may fit",
                     estimate->device_total() / kGiB, parts(*estimate), free_bytes / kGiB);
}

}  // namespace gpubench
