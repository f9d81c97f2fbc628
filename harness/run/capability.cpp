#include "run/capability.h"

#include <algorithm>
#include <thread>

#include "device/torch_cuda.h"

namespace gpubench {
namespace {

// The CUDA part: why this machine or build cannot run a cuda config, if it cannot.
std::optional<std::string> cuda_skip_reason(const Config& config, const MachineCapabilities& machine) {
  // LibTorch's own reason: the library that would run the config says why it cannot.
  if (machine.torch_cuda_unavailable) return machine.torch_cuda_unavailable;
  const int devices = machine.cuda.device_count;
  if (config.parallel == ParallelMode::Ddp && config.world_size > devices)
    return "ddp-" + std::to_string(config.world_size) + " needs " + std::to_string(config.world_size) +
           " CUDA devices (one per rank); this machine has " + std::to_string(devices);
  // Single-device configs compute on cuda:0 (parallel modes are fp32 only).
  if (config.precision == Precision::AmpBf16 && !machine.cuda.devices.empty()) {
    const GpuInfo& gpu = machine.cuda.devices.front();
    if (gpu.compute_major < 8)
      return "amp-bf16 needs bfloat16 support (compute capability 8.0+); cuda:0 " + gpu.name + " is " +
             std::to_string(gpu.compute_major) + "." + std::to_string(gpu.compute_minor);
  }
  if (config.precision == Precision::Tf32 && !machine.cuda.devices.empty()) {
    const GpuInfo& gpu = machine.cuda.devices.front();
    if (gpu.compute_major < 8)
      return "tf32 needs TF32 tensor cores (compute capability 8.0+); cuda:0 " + gpu.name + " is " +
             std::to_string(gpu.compute_major) + "." + std::to_string(gpu.compute_minor);
  }
  // DataParallel runs on however many devices there are, one included (the result
  // records the count in result["parallel"]["devices"]).
  return std::nullopt;
}

}  // namespace

MachineCapabilities detect_capabilities() {
  MachineCapabilities machine;
  machine.cuda = query_cuda_runtime();
  machine.torch_cuda_unavailable = torch_cuda_unavailable_reason();
  machine.cpu_cores = std::max(1u, std::thread::hardware_concurrency());
  return machine;
}

std::optional<std::string> skip_reason(const Config& config, const MachineCapabilities& machine) {
  if (config.device == DeviceKind::Cuda)
    if (auto reason = cuda_skip_reason(config, machine)) return reason;
  // CPU ranks share the machine's cores (each gets cores / N threads): more ranks than
  // cores would measure the scheduler, and a thousand would exhaust memory before the first step.
  if (config.device == DeviceKind::Cpu && config.parallel == ParallelMode::Ddp && config.world_size > machine.cpu_cores)
    return "ddp-" + std::to_string(config.world_size) + " needs " + std::to_string(config.world_size) +
           " CPU processes, one core each; this machine has " + std::to_string(machine.cpu_cores) + " cores";
  return std::nullopt;
}

}  // namespace gpubench
