#include "bench/cuda_availability.h"

#include <torch/torch.h>

#include "core/device/cuda_runtime.h"
#include "core/device/torch_cuda.h"

namespace gpubench::bench {

std::optional<std::string> cudart_unavailable_reason() {
  // Asked once: cudaGetDeviceCount without a driver is slow-ish and its answer cannot change.
  static const CudaRuntimeInfo info = query_cuda_runtime();
  if (info.available) return std::nullopt;
  return info.reason;
}

std::optional<std::string> torch_cuda_unavailable_reason(int devices_needed) {
  if (auto reason = gpubench::torch_cuda_unavailable_reason()) return reason;
  const auto count = static_cast<int>(torch::cuda::device_count());
  if (count < devices_needed)
    return "needs " + std::to_string(devices_needed) + " CUDA devices, found " + std::to_string(count);
  return std::nullopt;
}

}  // namespace gpubench::bench
