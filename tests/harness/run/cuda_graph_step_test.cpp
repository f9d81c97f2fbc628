// The graph variant's engine where no GPU is needed: it refuses what it cannot capture on,
// with a reason the config's failed row can carry. Its capture and replays run on the GPU
// machine (gpu_training_test.cpp: GraphReplaysTrainLikeEagerFusedAdam).
#include "harness/run/cuda_graph_step.h"

#include <gtest/gtest.h>

#include <torch/cuda.h>

namespace gpubench {
namespace {

std::string error_of(torch::Device device) {
  try {
    CudaGraphStep step(device);
  } catch (const std::exception& error) {
    return error.what();
  }
  return "";
}

TEST(CudaGraphStep, RefusesADeviceThatIsNotCuda) {
  EXPECT_EQ(error_of(torch::kCPU), "a CUDA Graph needs a CUDA device, not cpu");
}

TEST(CudaGraphStep, RefusesWhenLibTorchSeesNoDevice) {
  if (torch::cuda::device_count() > 0) GTEST_SKIP() << "a CUDA device is visible: the GPU tests capture for real";
  EXPECT_EQ(error_of(torch::Device(torch::kCUDA, 0)), "a CUDA Graph needs a CUDA device: LibTorch sees none");
}

}  // namespace
}  // namespace gpubench
