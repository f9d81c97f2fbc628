#pragma once
// LibTorch's own view of CUDA (its CUDA hooks, in libtorch_cuda): whether it can run CUDA
// here, and which CUDA, cuDNN and NCCL it was built with. Answers without a GPU or driver.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace gpubench {

// nullopt when LibTorch sees at least one CUDA device; else "no CUDA device: " and
// LibTorch's own reason (the driver's error as c10 words it, or "No CUDA GPUs are available").
std::optional<std::string> torch_cuda_unavailable_reason();

// {"cuda": "13.0", "cudnn": "9.19.0", "nccl": "2.28.9"}: compiled into LibTorch, not what a
// driver or a loaded library says ("cudnn" is absent from a build without cuDNN).
nlohmann::json torch_build_versions();

}  // namespace gpubench
