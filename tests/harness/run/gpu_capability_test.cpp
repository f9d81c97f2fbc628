#include <gtest/gtest.h>

#include <tuple>

#include "core/config/matrix_spec.h"
#include "harness/run/capability.h"
#include "harness/run/execution_plan.h"
#include "workloads/workload.h"

// The CUDA part of the capability decision, on synthetic machines and on this one.
namespace gpubench {
namespace {

GpuInfo gpu(const std::string& name, int major, int minor) {
  GpuInfo info;
  info.name = name;
  info.memory_bytes = 80ull << 30;
  info.compute_major = major;
  info.compute_minor = minor;
  return info;
}

MachineCapabilities cuda_machine(std::vector<GpuInfo> gpus) {
  MachineCapabilities machine;
  machine.cuda.available = !gpus.empty();
  machine.cuda.device_count = static_cast<int>(gpus.size());
  machine.cuda.devices = std::move(gpus);
  return machine;
}

std::optional<std::string> reason(const std::string& id, const MachineCapabilities& machine) {
  return skip_reason(Config::parse(id), machine);
}

TEST(CudaCapability, OneGpuRunsEverySingleProcessConfigAndDataParallel) {
  const auto machine = cuda_machine({gpu("NVIDIA H200", 9, 0)});
  for (const std::string id : {"cnn/cuda/fp32/pageable", "cnn/cuda/fp32/pinned", "cnn/cuda/amp-fp16/pinned",
                               "cnn/cuda/amp-bf16/pinned", "cnn/cuda/fp32/pinned/dp"})
    EXPECT_FALSE(reason(id, machine).has_value()) << id << ": " << reason(id, machine).value_or("");
}

TEST(CudaCapability, DdpWithMoreRanksThanDevicesIsSkippedWithTheCounts) {
  const auto machine = cuda_machine({gpu("NVIDIA H200", 9, 0)});
  const auto why = reason("cnn/cuda/fp32/pinned/ddp-2", machine);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "ddp-2 needs 2 CUDA devices (one per rank); this machine has 1");
  const auto fits = reason("cnn/cuda/fp32/pinned/ddp-1", machine);  // not a device-count problem
  if (fits) {
    EXPECT_EQ(fits->find("CUDA devices"), std::string::npos) << *fits;
  }
}

TEST(CudaCapability, Bf16NeedsComputeCapability8) {
  const auto turing = cuda_machine({gpu("Tesla T4", 7, 5)});
  const auto why = reason("cnn/cuda/amp-bf16/pinned", turing);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("Tesla T4 is 7.5"), std::string::npos) << *why;
  EXPECT_FALSE(reason("cnn/cuda/amp-fp16/pinned", turing).has_value());
  // Single-device configs compute on cuda:0: a second, older device does not matter.
  const auto mixed = cuda_machine({gpu("NVIDIA H200", 9, 0), gpu("Tesla T4", 7, 5)});
  EXPECT_FALSE(reason("cnn/cuda/amp-bf16/pinned", mixed).has_value());
}

TEST(CudaCapability, Fp8NeedsComputeCapability89) {
  const auto ampere = cuda_machine({gpu("NVIDIA A100-SXM4-80GB", 8, 0)});
  const auto why = reason("gpt2/cuda/fp8/pinned", ampere);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "fp8 needs FP8 tensor cores (Ada, Hopper, Blackwell) (compute capability 8.9+); cuda:0 "
                  "NVIDIA A100-SXM4-80GB is 8.0");
  EXPECT_FALSE(reason("gpt2/cuda/amp-bf16/pinned", ampere).has_value());
  for (const auto& [name, major, minor] : {std::tuple{"NVIDIA L4", 8, 9}, std::tuple{"NVIDIA H200", 9, 0},
                                           std::tuple{"NVIDIA B200", 10, 0}})
    EXPECT_FALSE(reason("gpt2/cuda/fp8/pinned", cuda_machine({gpu(name, major, minor)})).has_value()) << name;
}

// The table's Machine rules: dp under autocast runs on one GPU, is skipped on several; the
// machine's compute capability decides a stack as it decides its precision.
TEST(CudaCapability, StacksAreSkippedByTheTablesMachineRulesAndThePrecisionsCapability) {
  const auto one = cuda_machine({gpu("NVIDIA H100 80GB HBM3", 9, 0)});
  const auto two = cuda_machine({gpu("NVIDIA H100 80GB HBM3", 9, 0), gpu("NVIDIA H100 80GB HBM3", 9, 0)});
  EXPECT_FALSE(reason("mlp/cuda/amp-bf16/pinned/dp/adam-fused", one).has_value());
  const auto several = reason("mlp/cuda/amp-bf16/pinned/dp/adam-fused", two);
  ASSERT_TRUE(several.has_value());
  EXPECT_NE(several->find("do not inherit autocast"), std::string::npos) << *several;
  EXPECT_FALSE(reason("mlp/cuda/fp32/pinned/dp/channels-last", two).has_value()) << "fp32 replicas need no autocast";
  const auto volta = cuda_machine({gpu("Tesla V100-SXM2-16GB", 7, 0)});
  EXPECT_TRUE(reason("gpt2/cuda/amp-bf16/pinned/ddp-1/adam-fused/ckpt", volta).has_value());
  EXPECT_FALSE(reason("gpt2/cuda/amp-fp16/pinned/ddp-1/adam-fused/ckpt", volta).has_value());
}

// On a machine without a GPU (CI, the dev machines) every cuda config of the matrix,
// DDP included, is skipped with LibTorch's own reason.
TEST(CudaCapability, ThisMachineWithoutAGpuSkipsEveryCudaConfigWithLibTorchsReason) {
  const MachineCapabilities machine = detect_capabilities();
  if (!machine.torch_cuda_unavailable) GTEST_SKIP() << "this machine has a GPU";
  MatrixRequest request;
  request.spec = "gpu";
  request.workloads = {"mlp"};
  request.known_workloads = workload_traits(workload_names());
  request.cuda_devices = machine.cuda.device_count;
  const auto configs = expand_matrix(request);
  ASSERT_FALSE(configs.empty());
  for (const auto& config : configs) {
    const auto why = skip_reason(config, machine);
    ASSERT_TRUE(why.has_value()) << config.id();
    EXPECT_EQ(why->rfind("no CUDA device: ", 0), 0u) << config.id() << ": " << *why;
  }
}


}  // namespace
}  // namespace gpubench
