#pragma once
#include <optional>
#include <string>

namespace gpubench::bench {

// Why a CUDA benchmark cannot run on this machine, or nullopt when it can. Every CUDA
// benchmark is registered on every machine and skips with this reason (always starting
// "no CUDA device: " when the machine has none), so a CPU-only run says what it left out.

// For benchmarks that need only the CUDA runtime (copies): the runtime's own reason.
std::optional<std::string> cudart_unavailable_reason();

// For benchmarks through LibTorch's CUDA (matmul, NCCL, CUDA training step): LibTorch's
// reason, then too few devices.
std::optional<std::string> torch_cuda_unavailable_reason(int devices_needed = 1);

}  // namespace gpubench::bench
