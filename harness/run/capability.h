#pragma once
#include <optional>
#include <string>

#include "config/config.h"
#include "device/cuda_runtime.h"

namespace gpubench {

// What this machine and this build can run. Decided once per matrix, in the parent.
struct MachineCapabilities {
  CudaRuntimeInfo cuda;  // the runtime's device list (names, compute capability)
  // LibTorch's reason it cannot run CUDA here ("no CUDA device: ..."), nullopt when it can.
  std::optional<std::string> torch_cuda_unavailable;
  int cpu_cores = 1;  // logical CPUs: a CPU ddp-N rank needs one of its own
};

MachineCapabilities detect_capabilities();

// nullopt if the config can run here, else the reason it is skipped.
std::optional<std::string> skip_reason(const Config& config, const MachineCapabilities& machine);

}  // namespace gpubench
