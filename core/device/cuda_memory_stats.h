#pragma once
// The CUDA caching allocator's statistics (LibTorch's torch.cuda.memory_stats in C++).
// This header has no CUDA includes, so code built for the CPU paths may include it.
#include <cstdint>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

// Bytes of one device, from the allocator's aggregate pool (all sizes).
struct CudaAllocatorStats {
  int device = 0;
  std::int64_t allocated_bytes = 0;       // in tensors now
  std::int64_t reserved_bytes = 0;        // held by the allocator (cached included)
  std::int64_t peak_allocated_bytes = 0;  // since the last reset_cuda_peak_stats
  std::int64_t peak_reserved_bytes = 0;
};

CudaAllocatorStats cuda_allocator_stats(int device);
// Starts a new peak window: peaks become the current values.
void reset_cuda_peak_stats(int device);
// Returns cached, unused blocks to the driver (torch.cuda.empty_cache()).
void empty_cuda_cache();

// The driver's free and total bytes of `device` (cudaMemGetInfo): what a new allocation
// can still get, the caching allocator's cached blocks not counted as free.
struct CudaDeviceMemory {
  std::int64_t free_bytes = 0, total_bytes = 0;
};
CudaDeviceMemory cuda_device_memory(int device);

// One snapshot over `devices`: {"cuda_allocated_bytes", "cuda_reserved_bytes" (sums),
// "per_device": [{"device", "allocated_bytes", "reserved_bytes"}...]}.
nlohmann::json cuda_memory_snapshot(const std::vector<int>& devices);

// The per-step callback MemorySampler takes (profile/memory_sampler.h, DeviceMemoryStats):
// returns cuda_memory_snapshot(devices). Reads host-side counters only: no device sync.
std::function<nlohmann::json()> cuda_memory_callback(std::vector<int> devices);

}  // namespace gpubench
