#pragma once
// A config that cannot fit is refused before it trains, from its workload's memory
// estimate (workloads/memory_estimate.h), never left to the kernel's OOM killer or to the
// allocator half-way through a step:
//  - a CPU config, in the parent, against the host memory available now (MemAvailable, or
//    what a cgroup limit leaves): a `skipped` row naming the estimate;
//  - a CUDA config, in its own process (which sees the device), against the device's free
//    memory: a `failed` row naming the estimate and the free bytes.
// Workloads that give no estimate are never refused here.
#include <cstdint>
#include <optional>
#include <string>

#include "config/config.h"
#include "config/run_settings.h"

namespace gpubench {

// Why `config` cannot fit in `available_bytes` of host memory; nullopt: it fits or the
// workload gives no estimate. The checkpoint round trip's second model and optimizer count
// when the round trip would run.
std::optional<std::string> host_memory_refusal(const Config& config, const RunSettings& settings,
                                               double available_bytes, const std::string& source);

// Why `config` cannot fit in `free_bytes` of device memory; nullopt: it fits.
std::optional<std::string> device_memory_refusal(const Config& config, const RunSettings& settings, double free_bytes);

}  // namespace gpubench
