// Index 0 of each StatArray is the aggregate pool (all block sizes).
#include "core/device/cuda_memory_stats.h"

#include <ATen/Context.h>
#include <c10/core/Device.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>

namespace gpubench {
namespace {

// The caching allocator is set up lazily, by LibTorch's first CUDA use: before that, its
// stats calls fail ("Invalid device argument 0: did you call init?"). Idempotent and cheap
// once done; throws LibTorch's reason where there is no device.
c10::DeviceIndex initialised_device(int device) {
  at::globalContext().lazyInitDevice(c10::DeviceType::CUDA);
  return static_cast<c10::DeviceIndex>(device);
}

}  // namespace

CudaAllocatorStats cuda_allocator_stats(int device) {
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(initialised_device(device));
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
  c10::cuda::CUDACachingAllocator::resetPeakStats(initialised_device(device));
}

void empty_cuda_cache() { c10::cuda::CUDACachingAllocator::emptyCache(); }

CudaDeviceMemory cuda_device_memory(int device) {
  const c10::cuda::CUDAGuard guard(initialised_device(device));
  std::size_t free_bytes = 0, total_bytes = 0;
  C10_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return {static_cast<std::int64_t>(free_bytes), static_cast<std::int64_t>(total_bytes)};
}

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
