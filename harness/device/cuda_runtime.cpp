#include "device/cuda_runtime.h"

#if GPUBENCH_CUDART
#include <cuda_runtime_api.h>
#endif

namespace gpubench {

CudaRuntimeInfo query_cuda_runtime() {
  CudaRuntimeInfo info;
#if GPUBENCH_CUDART
  info.compiled = true;
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
#else
  info.reason = "no CUDA device: gpubench was built without the CUDA toolkit";
#endif
  return info;
}

}  // namespace gpubench
