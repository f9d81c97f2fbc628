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

// How `config` fits in `available_bytes` of host memory (named by `source`). Both nullopt:
// it fits, or the workload gives no estimate, or the amount is unknown (0).
HostMemoryFit host_memory_fit(const Config& config, const RunSettings& settings, double available_bytes,
                              const std::string& source);

// Why `config` cannot fit in `free_bytes` of device memory; nullopt: it fits.
std::optional<std::string> device_memory_refusal(const Config& config, const RunSettings& settings, double free_bytes);

}  // namespace gpubench
