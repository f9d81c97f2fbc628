#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {

struct GpuInfo {
  std::string name;
  std::uint64_t memory_bytes = 0;
  int compute_major = 0, compute_minor = 0;
};

// What the CUDA runtime says about this machine. Needs only cudart (not LibTorch's CUDA
// libraries), so it builds and runs on every machine with the toolkit: without a driver
// it reports the runtime's own error text as the reason.
struct CudaRuntimeInfo {
  bool available = false;
  int device_count = 0;
  int runtime_version = 0, driver_version = 0;
  std::string reason;     // why not available; empty when available
  std::vector<GpuInfo> devices;
};

CudaRuntimeInfo query_cuda_runtime();

}  // namespace gpubench
