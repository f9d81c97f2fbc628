#include "harness/run/memory_check.h"

#include <fmt/format.h>

#include "harness/run/config_sizes.h"
#include "workloads/workload.h"
#include "core/io/byte_units.h"

namespace gpubench {
namespace {

std::optional<MemoryEstimate> estimate_of(const Config& config, const RunSettings& settings) {
  const ResolvedSizes sizes = resolve_sizes(config, settings);
  return make_workload_for(config)->memory_estimate(config, sizes.batch_size);
}

std::string parts(const MemoryEstimate& e) {
  std::string text = fmt::format("weights, gradients and Adam state {:.1f} GiB, activations {:.1f} GiB, logits {:.1f} GiB, "
                                 "workspace {:.1f} GiB",
                                 e.states / kGiB, e.activations / kGiB, e.logits / kGiB, e.workspace / kGiB);
  if (e.buffers > 0) text += fmt::format(", reduction buffers {:.1f} GiB", e.buffers / kGiB);
  if (e.gathered > 0) text += fmt::format(", gathered units {:.1f} GiB", e.gathered / kGiB);
  if (e.startup > e.training_total())
    text += fmt::format("; more before training: the unsharded model and a unit being sharded, {:.1f} GiB", e.startup / kGiB);
  if (e.host_model > 0)
    text += fmt::format("; the rank builds its fp32 model on the host first, {:.1f} GiB of host memory", e.host_model / kGiB);
  return text;
}

// The ranks of a CPU config are processes of their own on this host, each holding its
// share (the estimate is one rank's: workloads/sharded_memory.h).
double host_ranks(const Config& config) {
  return config.device == DeviceKind::Cpu && config.multi_rank() ? config.world_size : 1;
}

}  // namespace

std::optional<double> training_memory_bytes(const Config& config, const RunSettings& settings) {
  const auto estimate = estimate_of(config, settings);
  if (!estimate) return std::nullopt;
  return host_ranks(config) * estimate->device_total();
}

HostMemoryFit host_memory_fit(const Config& config, const RunSettings& settings, double available_bytes,
                              const std::string& source) {
  if (config.device != DeviceKind::Cpu || available_bytes <= 0) return {};
  const auto estimate = estimate_of(config, settings);
  if (!estimate) return {};
  // Only rank 0 makes the round trip.
  const double ranks = host_ranks(config);
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

std::optional<std::string> device_round_trip_refusal(const Config& config, const RunSettings& settings,
                                                     double device_bytes) {
  if (config.device != DeviceKind::Cuda || device_bytes <= 0) return std::nullopt;
  const auto estimate = estimate_of(config, settings);
  if (!estimate) return std::nullopt;
  // An eager step's activations are cached blocks by then, which the round trip reuses; a
  // graph's private pool keeps the captured step's gradients, activations, logits and
  // workspace reserved.
  const double held = config.graph ? estimate->device_total() : estimate->states;
  // The two fp32 outputs compared fit in the logits' share (at least 8 bytes a logit).
  const double round_trip = estimate->checkpoint + estimate->logits;
  const double usable = kDeviceUsableShare * device_bytes;
  if (held + round_trip <= usable) return std::nullopt;
  return fmt::format("the round trip's second model, optimizer and outputs on the GPU (~{:.1f} GiB) would not fit beside "
                     "what training holds there ({} ~{:.1f} GiB) in {:.0f}% of its {:.1f} GiB",
                     round_trip / kGiB, config.graph ? "the CUDA Graph's pool and the states," : "the states,",
                     held / kGiB, 100 * kDeviceUsableShare, device_bytes / kGiB);
}

}  // namespace gpubench
