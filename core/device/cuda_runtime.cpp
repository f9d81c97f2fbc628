#include "core/device/cuda_runtime.h"

#include <cuda_runtime_api.h>

namespace gpubench {

CudaRuntimeInfo query_cuda_runtime() {
  CudaRuntimeInfo info;
  cudaRuntimeGetVersion(&info.runtime_version);
  cudaDriverGetVersion(&info.driver_version);  // 0 when no driver is installed
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    info.reason = std::string("no CUDA device: cudaGetDeviceCount: ") + cudaGetErrorString(status);
    cudaGetLastError();  // clear the sticky error so later queries start clean
    return info;
  }
  if (count == 0) {
    info.reason = "no CUDA device: cudaGetDeviceCount found 0 devices";
    return info;
  }
  info.available = true;
  info.device_count = count;
  for (int index = 0; index < count; ++index) {
    cudaDeviceProp props{};
    if (cudaGetDeviceProperties(&props, index) != cudaSuccess) continue;
    info.devices.push_back({props.name, static_cast<std::uint64_t>(props.totalGlobalMem), props.major, props.minor});
  }
  return info;
}

}  // namespace gpubench
