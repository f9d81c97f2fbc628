#include "bench/matmul_inputs.h"

#include <algorithm>

namespace gpubench::bench {
namespace {
// Larger than the biggest last-level caches in use (H100/H200 L2 50-60 MB, server L3s).
constexpr double kRotationBytes = 128.0 * 1024 * 1024;
constexpr std::size_t kMinSets = 2, kMaxSets = 64;
}  // namespace

MatmulInputs::MatmulInputs(std::int64_t n, torch::ScalarType dtype, torch::Device device) : n_(n) {
  const auto options = torch::TensorOptions().device(device).dtype(torch::kFloat32);
  const double set_bytes = 2.0 * static_cast<double>(n * n) * static_cast<double>(c10::elementSize(dtype));
  const auto wanted = static_cast<std::size_t>(kRotationBytes / set_bytes) + 1;
  const std::size_t sets = std::clamp(wanted, kMinSets, kMaxSets);
  for (std::size_t i = 0; i < sets; ++i)
    sets_.emplace_back(torch::randn({n, n}, options).to(dtype), torch::randn({n, n}, options).to(dtype));
  // An FP8 matmul (at::_scaled_mm) writes bf16: FP8 is an input format only.
  const bool fp8 = dtype == torch::kFloat8_e4m3fn;
  output_ = torch::empty({n, n}, options.dtype(fp8 ? torch::kBFloat16 : dtype));
}

const std::pair<torch::Tensor, torch::Tensor>& MatmulInputs::next() {
  const auto& set = sets_[position_];
  position_ = (position_ + 1) % sets_.size();
  return set;
}

}  // namespace gpubench::bench
