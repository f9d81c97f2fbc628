#include "core/device/torch_cuda.h"

#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/cuda/nccl.h>

namespace gpubench {

std::optional<std::string> torch_cuda_unavailable_reason() {
  try {
    // Throws LibTorch's reason: no driver, a driver too old, "No CUDA GPUs are available".
    c10::cuda::device_count_ensure_non_zero();
    return std::nullopt;
  } catch (const c10::Error& error) {
    return std::string("no CUDA device: ") + error.what_without_backtrace();
  }
}

namespace {

int torch_nccl_version_code() {
  // torch::cuda::nccl::version() packs NCCL_MAJOR/MINOR/PATCH of LibTorch's build as 32/16/16 bits.
  const std::uint64_t packed = torch::cuda::nccl::version();
  return static_cast<int>((packed >> 32) * 10000 + ((packed >> 16) & 0xFFFF) * 100 + (packed & 0xFFFF));
}

}  // namespace

nlohmann::json torch_build_versions() {
  const auto& hooks = at::detail::getCUDAHooks();
  const long cudart = hooks.versionCUDART();  // CUDART_VERSION: 13000 for 13.0
  nlohmann::json versions = {{"cuda", std::to_string(cudart / 1000) + "." + std::to_string(cudart % 1000 / 10)}};
  if (const long cudnn = hooks.versionCuDNN(); cudnn > 0) {
    // CUDNN_VERSION: major*10000+minor*100+patch since cuDNN 9, major*1000+minor*100+patch before.
    const long major_unit = cudnn >= 90000 ? 10000 : 1000;
    versions["cudnn"] = std::to_string(cudnn / major_unit) + "." + std::to_string(cudnn % major_unit / 100) + "." +
                        std::to_string(cudnn % 100);
  }
  const int nccl = torch_nccl_version_code();
  versions["nccl"] = std::to_string(nccl / 10000) + "." + std::to_string(nccl / 100 % 100) + "." + std::to_string(nccl % 100);
  return versions;
}

}  // namespace gpubench
