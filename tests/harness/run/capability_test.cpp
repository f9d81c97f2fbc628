#include "harness/run/capability.h"

#include <gtest/gtest.h>

#include <iostream>

namespace gpubench {
namespace {

const std::string kNoDriver =
    "no CUDA device: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
    "driver from http://www.nvidia.com/Download/index.aspx";

MachineCapabilities no_gpu() {
  MachineCapabilities machine;
  machine.cuda.reason = "no CUDA device: cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version";
  machine.torch_cuda_unavailable = kNoDriver;
  return machine;
}

TEST(Capability, CpuConfigsRunEverywhere) {
  EXPECT_FALSE(skip_reason(Config::parse("mlp/cpu/fp32"), no_gpu()).has_value());
  EXPECT_FALSE(skip_reason(Config::parse("mlp/cpu/bf16"), no_gpu()).has_value());
}

TEST(Capability, CpuDdpNeedsACorePerRank) {
  MachineCapabilities machine = no_gpu();
  machine.cpu_cores = 2;
  EXPECT_FALSE(skip_reason(Config::parse("mlp/cpu/fp32/ddp-2"), machine).has_value());
  EXPECT_EQ(skip_reason(Config::parse("mlp/cpu/fp32/ddp-1024"), machine),
            "ddp-1024 needs 1024 CPU processes, one core each; this machine has 2 cores");
}

TEST(Capability, GpuConfigsAreSkippedWithLibTorchsReason) {
  for (const std::string id : {"cnn/cuda/fp32/pageable", "cnn/cuda/amp-fp16/pinned", "cnn/cuda/fp32/pinned/dp",
                               "cnn/cuda/fp32/pinned/ddp-1"}) {
    const auto reason = skip_reason(Config::parse(id), no_gpu());
    ASSERT_TRUE(reason.has_value()) << id;
    EXPECT_EQ(*reason, kNoDriver) << id;
  }
}

// The runtime may list a device that LibTorch cannot use (say, a driver too old for it):
// LibTorch runs the config, so its reason decides.
TEST(Capability, LibTorchsAnswerDecidesEvenWhenTheRuntimeSeesADevice) {
  MachineCapabilities machine = no_gpu();
  machine.cuda.available = true;
  machine.cuda.device_count = 1;
  const auto reason = skip_reason(Config::parse("cnn/cuda/fp32/pinned"), machine);
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(*reason, kNoDriver);
}

TEST(Capability, GroupsLeaveRealScaleCpuConfigsOutWithoutAGpuUnlessTheWorkloadIsNamed) {
  const MachineCapabilities machine = no_gpu();
  EXPECT_FALSE(left_out_of_groups(Config::parse("cnn/cpu/fp32"), machine, false)) << "small workloads always run";
  const auto reason = left_out_of_groups(Config::parse("resnet50/cpu/fp32"), machine, false);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("--workload resnet50 or name resnet50/cpu/fp32"), std::string::npos) << *reason;
  EXPECT_FALSE(left_out_of_groups(Config::parse("resnet50/cpu/fp32"), machine, true)) << "--workload resnet50";
  EXPECT_FALSE(left_out_of_groups(Config::parse("gpt2/cuda/fp32/pinned"), machine, false)) << "CUDA rows skip on their own";
  MachineCapabilities gpu_machine = machine;
  gpu_machine.torch_cuda_unavailable.reset();
  gpu_machine.cuda.device_count = 1;
  EXPECT_FALSE(left_out_of_groups(Config::parse("gpt2/cpu/fp32/ddp-2"), gpu_machine, false)) << "GPU vs CPU is measured";
}

TEST(Capability, RealScaleBf16OnACpuWithoutBf16UnitsRunsOnlyByItsId) {
  MachineCapabilities machine = no_gpu();
  machine.cpu_bf16_units = false;
  const auto reason = left_out_of_groups(Config::parse("gpt2/cpu/bf16"), machine, /*workload_named=*/true);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("no bfloat16 units"), std::string::npos) << *reason;
  machine.cpu_bf16_units = true;
  EXPECT_FALSE(left_out_of_groups(Config::parse("gpt2/cpu/bf16"), machine, true));
  EXPECT_FALSE(left_out_of_groups(Config::parse("transformer/cpu/bf16"), no_gpu(), false)) << "slow_step bounds it";
}

TEST(Capability, ThisMachinesAnswersAreTurnedIntoReasons) {
  const MachineCapabilities machine = detect_capabilities();
  if (machine.cuda.available && !machine.torch_cuda_unavailable) GTEST_SKIP() << "this machine has a GPU";
  EXPECT_EQ(machine.cuda.device_count, 0);
  EXPECT_EQ(machine.cuda.reason.rfind("no CUDA device", 0), 0u) << machine.cuda.reason;
  ASSERT_TRUE(machine.torch_cuda_unavailable.has_value());
  // LibTorch's own words follow the prefix (no driver, or "No CUDA GPUs are available").
  EXPECT_EQ(machine.torch_cuda_unavailable->rfind("no CUDA device: ", 0), 0u) << *machine.torch_cuda_unavailable;
  EXPECT_GT(machine.torch_cuda_unavailable->size(), std::string("no CUDA device: ").size() + 10);
  std::cout << "LibTorch: " << *machine.torch_cuda_unavailable << "\n";
}

}  // namespace
}  // namespace gpubench
