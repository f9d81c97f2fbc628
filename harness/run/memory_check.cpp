#include "run/memory_check.h"

#include <fmt/format.h>

#include "run/config_sizes.h"
#include "workloads/workload.h"

namespace gpubench {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

std::optional<MemoryEstimate> estimate_of(const Config& config, const RunSettings& settings) {
  const ResolvedSizes sizes = resolve_sizes(config, settings);
  return make_workload(config.workload)->memory_estimate(config, sizes.batch_size);
}

std::string parts(const MemoryEstimate& e, bool with_checkpoint) {
  std::string text = fmt::format("weights, gradients and Adam state {:.1f} GiB, activations {:.1f} GiB, logits {:.1f} GiB",
                                 e.states / kGiB, e.activations / kGiB, e.logits / kGiB);
  if (with_checkpoint) text += fmt::format(", the checkpoint round trip's second copy {:.1f} GiB", e.checkpoint / kGiB);
  return text;
}

}  // namespace

std::optional<std::string> host_memory_refusal(const Config& config, const RunSettings& settings,
                                               double available_bytes, const std::string& source) {
  if (config.device != DeviceKind::Cpu || available_bytes <= 0) return std::nullopt;
  const auto estimate = estimate_of(config, settings);
  if (!estimate) return std::nullopt;
  const bool round_trip = settings.checkpoint_policy != CheckpointPolicy::Off;
  // DDP ranks are processes of their own on this host, each with the whole model.
  const double ranks = config.parallel == ParallelMode::Ddp ? config.world_size : 1;
  const double needed = ranks * (round_trip ? estimate->host_total() : estimate->device_total());
  if (needed <= available_bytes) return std::nullopt;
  return fmt::format("needs ~{:.1f} GiB of host memory ({}{}), more than the {:.1f} GiB available ({}); a smaller "
                     "--batch-size or --seq-len, ckpt, or --checkpoint-check off may fit",
                     needed / kGiB, parts(*estimate, round_trip), ranks > 1 ? fmt::format(", for each of {} ranks", ranks) : "",
                     available_bytes / kGiB, source);
}

std::optional<std::string> device_memory_refusal(const Config& config, const RunSettings& settings, double free_bytes) {
  if (config.device != DeviceKind::Cuda) return std::nullopt;
  const auto estimate = estimate_of(config, settings);
  if (!estimate || estimate->device_total() <= free_bytes) return std::nullopt;
  return fmt::format("does not fit the GPU: needs ~{:.1f} GiB ({}), {:.1f} GiB free on the device; a smaller --batch-size "
                     "or --seq-len, ckpt or accK may fit",
                     estimate->device_total() / kGiB, parts(*estimate, false), free_bytes / kGiB);
}

}  // namespace gpubench
