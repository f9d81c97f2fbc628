#pragma once
#include <optional>
#include <string>

#include "core/config/config.h"
#include "core/config/run_settings.h"
#include "core/device/cuda_runtime.h"

namespace gpubench {

// What this machine and this build can run. Decided once per matrix, in the parent.
struct MachineCapabilities {
  CudaRuntimeInfo cuda;  // the runtime's device list (names, compute capability)
  // LibTorch's reason it cannot run CUDA here ("no CUDA device: ..."), nullopt when it can.
  std::optional<std::string> torch_cuda_unavailable;
  int cpu_cores = 1;  // logical CPUs: a CPU ddp-N rank needs one of its own
  // The CPU has bfloat16 units (avx512_bf16 or amx_bf16): without them LibTorch's CPU bf16
  // matmuls take a slow path, many times slower than fp32.
  bool cpu_bf16_units = false;
  // The host memory a config's process may still use (device/host_memory_limit.h): what the
  // CPU configs' memory estimates are held against. 0: unknown.
  double host_available_bytes = 0;
  std::string host_available_source;
};

MachineCapabilities detect_capabilities();

// A compute capability a precision needs, and what the GPU must have at it.
struct ComputeCapability {
  int major, minor;
  const char* what;
  bool met_by(int device_major, int device_minor) const {
    return device_major * 10 + device_minor >= major * 10 + minor;
  }
  std::string text() const { return std::to_string(major) + "." + std::to_string(minor); }
};

// The tensor-core generation a CUDA precision needs (amp-bf16 and tf32 8.0, fp8 8.9), if
// any: the one table the skip reasons and the CUDA plan's own check read.
std::optional<ComputeCapability> minimum_compute_capability(Precision precision);

// nullopt if the config can run here, else the reason it is skipped.
std::optional<std::string> skip_reason(const Config& config, const MachineCapabilities& machine);
// The same, a config its workload cannot take (the rule table's Workload rules: a group's dp
// row of a TorchScript module), and a CPU config whose memory estimate at these settings
// does not fit the host (run/memory_check.h), each skipped with the reason.
std::optional<std::string> skip_reason(const Config& config, const MachineCapabilities& machine,
                                       const RunSettings& settings);

// Why a group (all, cpu, ...) leaves a config out on this machine although it could run:
// the real-scale workloads' CPU configs on a machine without a usable GPU (a step takes
// seconds there) unless --workload names the workload, and their CPU bf16 configs on a CPU
// without bf16 units (a step takes minutes) unless the id itself is named. The caller
// passes what the user named.
std::optional<std::string> left_out_of_groups(const Config& config, const MachineCapabilities& machine,
                                              bool workload_named);

}  // namespace gpubench
