#include "run/capability.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

MachineCapabilities no_gpu() {
  MachineCapabilities machine;
  machine.cuda.compiled = true;
  machine.cuda.reason = "no CUDA device: cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version";
  return machine;
}

TEST(Capability, CpuConfigsRunEverywhere) {
  EXPECT_FALSE(skip_reason(Config::parse("mlp/cpu/fp32"), no_gpu()).has_value());
  EXPECT_FALSE(skip_reason(Config::parse("mlp/cpu/bf16"), no_gpu()).has_value());
}

TEST(Capability, GpuConfigsAreSkippedWithTheRuntimeReason) {
  for (const std::string id : {"cnn/cuda/fp32/pageable", "cnn/cuda/amp-fp16/pinned", "cnn/cuda/fp32/pinned/dp"}) {
    const auto reason = skip_reason(Config::parse(id), no_gpu());
    ASSERT_TRUE(reason.has_value()) << id;
    EXPECT_NE(reason->find("no CUDA device: cudaGetDeviceCount"), std::string::npos) << *reason;
  }
}

TEST(Capability, GpuConfigsNeedALibTorchWithCuda) {
  MachineCapabilities machine;
  machine.cuda.available = true;
  machine.cuda.device_count = 1;
  machine.torch_cuda = false;
  const auto reason = skip_reason(Config::parse("cnn/cuda/fp32/pinned"), machine);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("LibTorch in this build has no CUDA"), std::string::npos);
}

TEST(Capability, ThisMachinesRuntimeAnswerIsTurnedIntoAReason) {
  const auto info = query_cuda_runtime();
  if (info.available) GTEST_SKIP() << "this machine has a GPU";
  EXPECT_EQ(info.device_count, 0);
  EXPECT_EQ(info.reason.rfind("no CUDA device", 0), 0u) << info.reason;
}

}  // namespace
}  // namespace gpubench
