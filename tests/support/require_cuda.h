#pragma once
// For the GPU tests (ctest label gpu): skip, with LibTorch's own reason, where no CUDA
// device is visible; on the GPU machine they run.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "core/device/torch_cuda.h"

#define REQUIRE_CUDA()                                                                   \
  if (const auto why = ::gpubench::torch_cuda_unavailable_reason(); why.has_value()) \
  GTEST_SKIP() << *why

namespace gpubench::test_support {
// The one device the GPU tests train on.
inline const torch::Device kCuda0(torch::kCUDA, 0);
}  // namespace gpubench::test_support
