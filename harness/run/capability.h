#pragma once
#include <optional>
#include <string>

#include "config/config.h"
#include "device/cuda_runtime.h"

namespace gpubench {

// What this machine and this build can run. Decided once per matrix, in the parent.
struct MachineCapabilities {
  CudaRuntimeInfo cuda;
  bool torch_cuda = false;  // LibTorch itself has CUDA
};

MachineCapabilities detect_capabilities();

// nullopt if the config can run here, else the reason it is skipped.
std::optional<std::string> skip_reason(const Config& config, const MachineCapabilities& machine);

}  // namespace gpubench
