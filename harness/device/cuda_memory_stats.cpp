// Compiled only where LibTorch has CUDA (GPUBENCH_TORCH_CUDA); syntax-checked elsewhere.
// The stats struct's type moved between versions (c10::cuda::CUDACachingAllocator::DeviceStats
// in 1.13, c10::CachingDeviceAllocator::DeviceStats in 2.x): only `auto` names it, and
// index 0 of each StatArray is the aggregate pool in both.
#include "device/cuda_memory_stats.h"

#include <c10/core/Device.h>
#include <c10/cuda/CUDACachingAllocator.h>

namespace gpubench {

CudaAllocatorStats cuda_allocator_stats(int device) {
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device));
  constexpr std::size_t kAggregate = 0;
  CudaAllocatorStats out;
  out.device = device;
  out.allocated_bytes = static_cast<std::int64_t>(stats.allocated_bytes[kAggregate].current);
  out.reserved_bytes = static_cast<std::int64_t>(stats.reserved_bytes[kAggregate].current);
  out.peak_allocated_bytes = static_cast<std::int64_t>(stats.allocated_bytes[kAggregate].peak);
  out.peak_reserved_bytes = static_cast<std::int64_t>(stats.reserved_bytes[kAggregate].peak);
  return out;
}

void reset_cuda_peak_stats(int device) {
  c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(device));
}

void empty_cuda_cache() { c10::cuda::CUDACachingAllocator::emptyCache(); }

nlohmann::json cuda_memory_snapshot(const std::vector<int>& devices) {
  std::int64_t allocated = 0, reserved = 0;
  nlohmann::json per_device = nlohmann::json::array();
  for (int device : devices) {
    const CudaAllocatorStats stats = cuda_allocator_stats(device);
    allocated += stats.allocated_bytes;
    reserved += stats.reserved_bytes;
    per_device.push_back(
        {{"device", device}, {"allocated_bytes", stats.allocated_bytes}, {"reserved_bytes", stats.reserved_bytes}});
  }
  return {{"cuda_allocated_bytes", allocated}, {"cuda_reserved_bytes", reserved}, {"per_device", per_device}};
}

std::function<nlohmann::json()> cuda_memory_callback(std::vector<int> devices) {
  return [devices = std::move(devices)] { return cuda_memory_snapshot(devices); };
}

}  // namespace gpubench
