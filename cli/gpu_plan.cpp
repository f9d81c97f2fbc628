#include "cli/gpu_plan.h"

#include <fmt/format.h>

#include "harness/run/config_sizes.h"
#include "workloads/workload.h"
#include "core/io/byte_units.h"

namespace gpubench {
namespace {

constexpr std::int64_t kLargestPlannedBatch = 4096;

std::optional<double> estimate_at(const Workload& workload, const Config& config, std::int64_t batch) {
  const auto estimate = workload.memory_estimate(config, batch);
  return estimate ? std::optional<double>(estimate->device_total()) : std::nullopt;
}

}  // namespace

MachineCapabilities with_assumed_gpus(MachineCapabilities machine, const AssumedGpus& gpus) {
  machine.torch_cuda_unavailable = std::nullopt;
  machine.cuda.available = true;
  machine.cuda.reason.clear();
  machine.cuda.device_count = gpus.count;
  machine.cuda.devices.assign(static_cast<std::size_t>(gpus.count),
                              GpuInfo{"assumed " + gpus.text + " GPU", static_cast<std::uint64_t>(gpus.bytes_each), 9, 0});
  return machine;
}

GpuFit plan_gpu_fit(const Config& config, const RunSettings& settings, const AssumedGpus& gpus) {
  GpuFit fit;
  const auto workload = make_workload_for(config);
  fit.micro_batch = resolve_sizes(config, settings).batch_size;
  fit.estimate_bytes = estimate_at(*workload, config, fit.micro_batch);
  const double usable = kPlannedGpuShare * gpus.bytes_each;
  if (!fit.estimate_bytes) {
    fit.text = config.workload + " gives no memory estimate: its fit is not known before it runs";
    return fit;
  }
  fit.fits = *fit.estimate_bytes <= usable;
  const auto fits_at = [&](std::int64_t batch) {
    const auto bytes = estimate_at(*workload, config, batch);
    return bytes && *bytes <= usable;
  };
  if (fit.fits) {
    // The largest power-of-two micro-batch that still fits, up to kLargestPlannedBatch.
    fit.fits_at = fit.micro_batch;
    for (std::int64_t batch = 2 * fit.micro_batch; batch <= kLargestPlannedBatch && fits_at(batch); batch *= 2) fit.fits_at = batch;
  } else {
    for (std::int64_t batch = fit.micro_batch / 2; batch >= 1 && !fit.fits_at; batch /= 2)
      if (fits_at(batch)) fit.fits_at = batch;
  }
  const std::string per_gpu = fmt::format("~{:.1f} GiB a GPU at micro-batch {}", *fit.estimate_bytes / kGiB, fit.micro_batch);
  const std::string room = fmt::format("{:.0f}% of {:.1f} GiB", kPlannedGpuShare * 100, gpus.bytes_each / kGiB);
  if (fit.fits)
    fit.text = fmt::format("fits: {}, within {}; up to micro-batch {}", per_gpu, room, *fit.fits_at);
  else if (fit.fits_at)
    fit.text = fmt::format("does not fit: {}, over {}; fits at micro-batch {}", per_gpu, room, *fit.fits_at);
  else
    fit.text = "does not fit: " + per_gpu + ", over " + room + ", nor at micro-batch 1";
  const auto estimate = workload->memory_estimate(config, fit.micro_batch);
  if (!estimate) return fit;
  // Where the start binds (zero1-N and zero2-N build the whole fp32 model on each GPU before
  // they shard it), say so and what training alone would need: the model is too large to
  // build whole on one GPU, not to train sharded.
  if (!fit.fits && estimate->startup > estimate->training_total())
    fit.text += fmt::format("; the start binds: each GPU builds the whole fp32 model first (~{:.1f} GiB), and training "
                            "alone needs ~{:.1f} GiB ({})",
                            estimate->startup / kGiB, estimate->training_total() / kGiB,
                            estimate->training_total() <= usable ? "it would fit" : "over too");
  // fsdp-N and ep-K build it on the host instead: every rank of a node holds it there at once.
  fit.host_model_bytes = estimate->host_model;
  if (estimate->host_model > 0)
    fit.text += fmt::format("; each rank first builds the fp32 model on the host (~{:.1f} GiB of host memory a rank)",
                            estimate->host_model / kGiB);
  return fit;
}

}  // namespace gpubench
