#include "run/capability.h"

namespace gpubench {

MachineCapabilities detect_capabilities() {
  MachineCapabilities machine;
  machine.cuda = query_cuda_runtime();
  machine.torch_cuda = GPUBENCH_TORCH_CUDA;
  return machine;
}

std::optional<std::string> skip_reason(const Config& config, const MachineCapabilities& machine) {
  if (config.parallel == ParallelMode::Ddp)
    return std::string("DistributedDataParallel is not implemented in this build yet");
  if (config.device == DeviceKind::Cpu) return std::nullopt;
  // The runtime's own reason first: it is what a user can act on (driver, device).
  if (!machine.cuda.available) return machine.cuda.reason;
  if (!machine.torch_cuda)
    return std::string("LibTorch in this build has no CUDA: rebuild gpubench against a CUDA LibTorch "
                       "(scripts/build-with-pip-torch.sh)");
  return std::nullopt;
}

}  // namespace gpubench
