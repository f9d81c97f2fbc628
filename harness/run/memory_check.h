#pragma once
// A config that cannot fit is refused before it trains, from its workload's memory
// estimate (workloads/memory_estimate.h), never left to the kernel's OOM killer or to the
// allocator half-way through a step:
//  - a CPU config, in the parent, against the host memory available now (MemAvailable, or
//    what a cgroup limit leaves): a `skipped` row naming the estimate; when only the
//    checkpoint round trip's second model and optimizer do not fit, the config still runs
//    and its row says the round trip was left out, and why;
//  - a CUDA config, in its own process (which sees the device), against the device's free
//    memory: a `failed` row naming the estimate and the free bytes.
// Workloads that give no estimate are never refused here.
#include <cstdint>
#include <optional>
#include <string>

#include "core/config/config.h"
#include "core/config/run_settings.h"

namespace gpubench {

struct HostMemoryFit {
  std::optional<std::string> refusal;             // training does not fit: the config is skipped
  std::optional<std::string> round_trip_refusal;  // training fits; the round trip's second copy does not
};

// The memory `config`'s training needs by its workload's estimate, in the place the checks
// below hold it against: on the CPU the host bytes of all its processes (each DDP rank holds
// the whole model), on a GPU the bytes of one device; nullopt when the workload gives no
// estimate.
std::optional<double> training_memory_bytes(const Config& config, const RunSettings& settings);

// How `config` fits in `available_bytes` of host memory (named by `source`). Both nullopt:
// it fits, or the workload gives no estimate, or the amount is unknown (0).
HostMemoryFit host_memory_fit(const Config& config, const RunSettings& settings, double available_bytes,
                              const std::string& source);

// Why `config` cannot fit in `free_bytes` of device memory; nullopt: it fits.
std::optional<std::string> device_memory_refusal(const Config& config, const RunSettings& settings, double free_bytes);

// The share of a GPU's memory the round trip may plan on: the rest is the CUDA context,
// cuBLAS/cuDNN workspaces and the caching allocator's fragmentation.
inline constexpr double kDeviceUsableShare = 0.9;

// Why a CUDA config's checkpoint round trip, made on the device (the second model and
// optimizer, the two outputs compared), would not fit beside what training still holds
// there on a GPU of `device_bytes`: the trained model's states, and under a CUDA Graph its
// private pool as well, reserved for the replays. nullopt: it fits, the workload gives no
// estimate, or the GPU's size is unknown (0). The config still runs; the round trip is left out.
std::optional<std::string> device_round_trip_refusal(const Config& config, const RunSettings& settings,
                                                     double device_bytes);

}  // namespace gpubench
