// The fp8 precision on a real device (label gpu): cuBLASLt's FP8 matmuls through
// at::_scaled_mm give what the CPU's reference kernel gives for the same FP8 operands, and
// gpt2's fp8 row trains as its amp-bf16 row within the report's 2% loss-parity bar.
#include <gtest/gtest.h>

#include <cmath>

#include <ATen/cuda/CUDAContext.h>

#include "harness/run/capability.h"
#include "support/quick_row.h"
#include "support/require_cuda.h"
#include "workloads/fp8_linear.h"

namespace gpubench {
namespace {

bool device_has_fp8() {
  const cudaDeviceProp* props = at::cuda::getDeviceProperties(0);
  return minimum_compute_capability(Precision::Fp8)->met_by(props->major, props->minor);
}

#define REQUIRE_FP8()                                                                \
  REQUIRE_CUDA();                                                                    \
  if (!device_has_fp8()) GTEST_SKIP() << "cuda:0 has no FP8 tensor cores (needs 8.9+)"

double relative_error(const torch::Tensor& got, const torch::Tensor& want) {
  const auto a = got.cpu().to(torch::kFloat64), b = want.cpu().to(torch::kFloat64);
  return ((a - b).norm() / b.norm()).item<double>();
}

struct LinearRun {
  torch::Tensor y, grad_x, grad_w;
};

LinearRun run_linear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& grad_y, torch::Device device) {
  const torch::Tensor xd = x.to(device).requires_grad_(), wd = w.to(device).requires_grad_();
  const torch::Tensor y = fp8_linear(xd, wd, {});
  y.backward(grad_y.to(device));
  return {y.detach(), xd.grad(), wd.grad()};
}

TEST(GpuFp8, LinearMatchesTheCpuReferenceKernelOnTheSameFp8Operands) {
  REQUIRE_FP8();
  torch::manual_seed(0);
  const torch::Tensor x = torch::randn({256, 768}), w = torch::randn({2304, 768}) * 0.02, g = torch::randn({256, 2304});
  const LinearRun cpu = run_linear(x, w, g, torch::kCPU), gpu = run_linear(x, w, g, torch::Device(torch::kCUDA, 0));
  // The forward's fast accumulation (Hopper's lower-precision accumulator) costs ~1e-3.
  EXPECT_LT(relative_error(gpu.y, cpu.y), 1e-2);
  EXPECT_LT(relative_error(gpu.grad_x, cpu.grad_x), 1e-3);
  EXPECT_LT(relative_error(gpu.grad_w, cpu.grad_w), 1e-3);
}

nlohmann::json run_quick_fp8(const std::string& id) { return run_quick_row(id, {/*steps=*/6, /*warmup=*/1, /*batch_size=*/4}); }

TEST(GpuFp8, Gpt2TrainsAsItsAmpBf16RowWithinTwoPercent) {
  REQUIRE_FP8();
  const nlohmann::json bf16 = run_quick_fp8("gpt2/cuda/amp-bf16/pinned");
  const nlohmann::json fp8 = run_quick_fp8("gpt2/cuda/fp8/pinned");
  const auto& a = bf16["loss"]["curve"];
  const auto& b = fp8["loss"]["curve"];
  ASSERT_EQ(a.size(), b.size());
  EXPECT_NE(a, b) << "the fp8 row trained the bf16 model: its Linear layers were not built in FP8";
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(b[i].get<double>(), a[i].get<double>(), 0.02 * a[i].get<double>()) << "step " << i;
  EXPECT_EQ(fp8["fp8"].value("grad_output", ""), "float8_e5m2");
  std::cout << "gpt2 batch 4: fp8 " << fp8["throughput"]["samples_per_s"]["median"].get<double>() << " samples/s, "
            << "amp-bf16 " << bf16["throughput"]["samples_per_s"]["median"].get<double>() << " samples/s\n";
}

}  // namespace
}  // namespace gpubench
