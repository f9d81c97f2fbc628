// The GPU configurations on a real device (ctest label gpu): every test skips, with
// LibTorch's reason, where no device is visible, and runs on the GPU machine.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <torch/cuda.h>

#include "core/config/run_settings.h"
#include "core/device/cuda_memory_stats.h"
#include "core/device/torch_cuda.h"
#include "support/require_cuda.h"
#include "harness/run/config_runner.h"
#include "harness/run/grad_scaler.h"
#include "harness/run/pinned_batch_source.h"
#include "workloads/workload.h"

namespace gpubench {
namespace {

using test_support::kCuda0;

// ---- GradScaler: the ATen CUDA kernels and the fallback agree bit for bit ----

TEST(GpuGradScaler, AtenKernelsAndFallbackAgreeOnCuda) {
  REQUIRE_CUDA();
  GradScalerOptions options;
  options.init_scale = 1000.0;
  options.growth_interval = 2;
  GradScaler aten(options, AmpKernels::Aten), fallback(options, AmpKernels::TensorOps);
  aten.scale(torch::ones({}, kCuda0));
  fallback.scale(torch::ones({}, kCuda0));
  const auto make = [](torch::Dtype dtype) {
    return torch::zeros({64}, torch::TensorOptions().device(kCuda0).dtype(dtype).requires_grad(true));
  };
  torch::Tensor aw = make(torch::kFloat), ah = make(torch::kHalf), fw = make(torch::kFloat), fh = make(torch::kHalf);
  torch::optim::SGD aopt({aw, ah}, torch::optim::SGDOptions(0.1)), fopt({fw, fh}, torch::optim::SGDOptions(0.1));
  torch::manual_seed(3);
  for (int i = 0; i < 7; ++i) {
    torch::Tensor g = torch::randn({64}, kCuda0) * aten.current_scale();
    if (i == 2) g[5] = std::numeric_limits<float>::infinity();
    if (i == 4) g[9] = std::numeric_limits<float>::quiet_NaN();
    aw.mutable_grad() = g.clone();
    fw.mutable_grad() = g.clone();
    ah.mutable_grad() = (g / 64).to(torch::kHalf);
    fh.mutable_grad() = (g / 64).to(torch::kHalf);
    aten.unscale(aopt);
    fallback.unscale(fopt);
    EXPECT_TRUE(torch::equal(aw.grad().nan_to_num(), fw.grad().nan_to_num())) << i;
    EXPECT_TRUE(torch::equal(ah.grad().nan_to_num(), fh.grad().nan_to_num())) << i;
    EXPECT_EQ(aten.step(aopt), fallback.step(fopt)) << i;
    aten.update();
    fallback.update();
    EXPECT_EQ(aten.current_scale(), fallback.current_scale()) << i;
    EXPECT_EQ(aten.growth_tracker(), fallback.growth_tracker()) << i;
  }
  EXPECT_EQ(aten.skipped_steps(), 2);
  EXPECT_EQ(aten.unscale_kernel(), "aten");
}

// ---- Batch sources ----

Dataset small_dataset() { return make_workload("mlp")->make_dataset({512, 5, ""}); }

LoaderOptions batches_of(std::int64_t size) {
  LoaderOptions options;
  options.batch_size = size;
  return options;
}

TEST(GpuBatchSource, PinnedSourceDeliversTheSameBatchesAsThePageableOne) {
  REQUIRE_CUDA();
  torch::manual_seed(1);
  LoaderBatchSource pageable(small_dataset(), batches_of(64), kCuda0);
  std::vector<Batch> expected;
  for (int i = 0; i < 10; ++i) expected.push_back(pageable.to_device(pageable.next()));  // crosses an epoch

  torch::manual_seed(1);
  auto stats = std::make_shared<H2dCopyStats>("pinned");
  stats->step_begin(0, true);
  PinnedBatchSource pinned(std::make_unique<LoaderBatchSource>(small_dataset(), batches_of(64), torch::kCPU),
                           kCuda0, stats);
  for (int i = 0; i < 10; ++i) {
    Batch host = pinned.next();
    EXPECT_TRUE(host.data.is_pinned());
    EXPECT_TRUE(host.target.is_pinned());
    Batch device = pinned.to_device(std::move(host));
    EXPECT_EQ(device.data.device(), kCuda0);
    // Work on the compute stream after to_device sees the copied data.
    EXPECT_TRUE(torch::equal(device.data, expected[static_cast<std::size_t>(i)].data)) << i;
    EXPECT_TRUE(torch::equal(device.target, expected[static_cast<std::size_t>(i)].target)) << i;
  }
  // Every batch handed out is counted, the last ones at run end (the drain); the prefetched
  // batch no step took is not.
  stats->run_end();
  EXPECT_EQ(stats->copies(), 10u);
  EXPECT_EQ(stats->warmup_copies(), 0u);
  nlohmann::json result;
  stats->write_result(result);
  EXPECT_GT(result["h2d"]["gb_per_s"].get<double>(), 0.0);
  EXPECT_EQ(result["h2d"]["bytes_per_step"].get<std::uint64_t>(),
            static_cast<std::uint64_t>(expected[0].data.nbytes() + expected[0].target.nbytes()));
}

// The prefetch of step N+1 is issued during step N: the copy still counts for the step
// that takes the batch (here: issued in the last warm-up step, taken by a measured one).
TEST(GpuBatchSource, PinnedCopiesCountForTheStepThatTakesTheBatch) {
  REQUIRE_CUDA();
  auto stats = std::make_shared<H2dCopyStats>("pinned");
  PinnedBatchSource pinned(std::make_unique<LoaderBatchSource>(small_dataset(), batches_of(64), torch::kCPU),
                           kCuda0, stats);
  for (int step = 0; step < 5; ++step) {
    stats->step_begin(step, /*measured=*/step >= 2);
    pinned.to_device(pinned.next());
    torch::cuda::synchronize();
  }
  stats->run_end();
  EXPECT_EQ(stats->warmup_copies(), 2u);
  EXPECT_EQ(stats->copies(), 3u);
}

TEST(GpuBatchSource, PinnedSourceAllowsOneOutstandingBatch) {
  REQUIRE_CUDA();
  PinnedBatchSource pinned(std::make_unique<LoaderBatchSource>(small_dataset(), batches_of(64), torch::kCPU),
                           kCuda0);
  Batch first = pinned.next();
  EXPECT_THROW(pinned.next(), std::logic_error);
  Batch stranger{torch::zeros({64, 784}), torch::zeros({64}, torch::kLong)};
  EXPECT_THROW(pinned.to_device(stranger), std::logic_error);
  EXPECT_NO_THROW(pinned.to_device(std::move(first)));
}

TEST(GpuBatchSource, PageableCopiesAreTimed) {
  REQUIRE_CUDA();
  auto stats = std::make_shared<H2dCopyStats>("pageable");
  stats->step_begin(0, true);
  CopyTimedBatchSource source(std::make_unique<LoaderBatchSource>(small_dataset(), batches_of(64), kCuda0),
                              kCuda0, stats);
  for (int i = 0; i < 4; ++i) {
    Batch batch = source.to_device(source.next());
    EXPECT_EQ(batch.data.device(), kCuda0);
  }
  EXPECT_EQ(stats->copies(), 4u);
}

// ---- Allocator statistics ----

TEST(GpuMemoryStats, PeaksSeeAnAllocationAndResetToCurrent) {
  REQUIRE_CUDA();
  reset_cuda_peak_stats(0);
  const auto before = cuda_allocator_stats(0);
  {
    const torch::Tensor big = torch::empty({64ll << 20}, torch::TensorOptions().device(kCuda0).dtype(torch::kByte));
    const auto during = cuda_allocator_stats(0);
    EXPECT_GE(during.allocated_bytes - before.allocated_bytes, 64ll << 20);
  }
  const auto after = cuda_allocator_stats(0);
  EXPECT_GE(after.peak_allocated_bytes - after.allocated_bytes, 64ll << 20);
  EXPECT_GE(after.peak_reserved_bytes, after.peak_allocated_bytes);
  reset_cuda_peak_stats(0);
  const auto reset = cuda_allocator_stats(0);
  EXPECT_EQ(reset.peak_allocated_bytes, reset.allocated_bytes);
  const nlohmann::json snapshot = cuda_memory_callback({0})();
  EXPECT_TRUE(snapshot.contains("cuda_allocated_bytes"));
  EXPECT_TRUE(snapshot.contains("cuda_reserved_bytes"));
  EXPECT_EQ(snapshot["per_device"].size(), 1u);
}

// ---- Whole configs, in process ----

RunSettings quick_settings() {
  RunSettings settings;
  settings.preset = Preset::Quick;
  settings.steps = 6;
  settings.warmup = 2;
  settings.seed = 42;
  settings.cupti = false;  // CUPTI has its own tests; keep these about the plan
  return settings;
}

nlohmann::json run(const std::string& id) {
  const nlohmann::json result = run_config_in_process(Config::parse(id), quick_settings());
  EXPECT_EQ(result.value("status", ""), "ok") << id << ": " << result.value("reason", "");
  return result;
}

TEST(GpuConfigs, EverySingleProcessCudaConfigRunsAndReportsCopiesAndMemory) {
  REQUIRE_CUDA();
  for (const std::string id : {"mlp/cuda/fp32/pageable", "mlp/cuda/fp32/pinned", "mlp/cuda/amp-fp16/pinned",
                               "mlp/cuda/amp-bf16/pinned", "mlp/cuda/fp32/pinned/dp"}) {
    SCOPED_TRACE(id);
    const nlohmann::json result = run(id);
    EXPECT_GT(result["h2d"]["copies"].get<int>(), 0);
    EXPECT_GT(result["h2d"]["gb_per_s"].get<double>(), 0.0);
    EXPECT_GT(result["memory"]["cuda_peak_allocated_bytes"].get<std::int64_t>(), 0);
    EXPECT_GE(result["memory"]["cuda_peak_reserved_bytes"].get<std::int64_t>(),
              result["memory"]["cuda_peak_allocated_bytes"].get<std::int64_t>());
    EXPECT_TRUE(std::isfinite(result["loss"]["last"].get<double>()));
    EXPECT_EQ(result.contains("grad_scaler"), id.find("amp-fp16") != std::string::npos);
  }
}

TEST(GpuConfigs, DataParallelRecordsItsDeviceCount) {
  REQUIRE_CUDA();
  const nlohmann::json result = run("mlp/cuda/fp32/pinned/dp");
  EXPECT_EQ(result["parallel"]["devices"].get<int>(), static_cast<int>(torch::cuda::device_count()));
  // Whether BatchNorm's running statistics survive LibTorch's replicas is stated.
  const std::string note = result["parallel"]["batch_norm_running_stats"];
  EXPECT_EQ(note.rfind(torch::cuda::device_count() == 1 ? "updated" : "not updated", 0), 0u) << note;
}

// Same seed, same data: the first loss (before any update) differs only by autocast's
// rounding, and fp16 with the scaler does not diverge from fp32 within a few steps.
TEST(GpuConfigs, AmpLossesMatchFp32OnTheSameSeedAndData) {
  REQUIRE_CUDA();
  const nlohmann::json fp32 = run("mlp/cuda/fp32/pinned");
  for (const std::string id : {"mlp/cuda/amp-fp16/pinned", "mlp/cuda/amp-bf16/pinned"}) {
    SCOPED_TRACE(id);
    const nlohmann::json amp = run(id);
    const double first = fp32["loss"]["first"].get<double>();
    EXPECT_NEAR(amp["loss"]["first"].get<double>(), first, 0.02 * first);
    const double last = fp32["loss"]["last"].get<double>();
    EXPECT_NEAR(amp["loss"]["last"].get<double>(), last, 0.10 * last + 0.05);
  }
  // Pinned and pageable train on the same batches in the same order: same losses.
  const nlohmann::json pageable = run("mlp/cuda/fp32/pageable");
  EXPECT_NEAR(pageable["loss"]["first"].get<double>(), fp32["loss"]["first"].get<double>(), 1e-6);
}

// The graph replays the same kernels as eager fused Adam on the same batches: the same loss
// curve (within float reassociation), every measured step a replay, the step counts saved.
TEST(GpuConfigs, GraphReplaysTrainLikeEagerFusedAdam) {
  REQUIRE_CUDA();
  for (const std::string workload : {"mlp", "cnn", "transformer"}) {
    SCOPED_TRACE(workload);
    const nlohmann::json eager = run(workload + "/cuda/fp32/pinned/adam-fused");
    const nlohmann::json graph = run(workload + "/cuda/fp32/pinned/graph");
    ASSERT_TRUE(graph.contains("cuda_graph")) << graph.dump();
    EXPECT_EQ(graph["cuda_graph"]["replays"].get<int>(), graph["steps"]["measured"].get<int>());
    EXPECT_GT(graph["cuda_graph"]["capture_ms"].get<double>(), 0.0);
    EXPECT_EQ(graph["checkpoint"]["outputs_equal"], true) << graph["checkpoint"].dump();
    const auto& a = eager["loss"]["curve"];
    const auto& b = graph["loss"]["curve"];
    // The graph config warms up 3 steps (eager) against the eager row's 2: compare the
    // common prefix of the same batches.
    ASSERT_EQ(a.size(), b.size() - 1);
    for (std::size_t i = 0; i < a.size(); ++i)
      EXPECT_NEAR(b[i].get<double>(), a[i].get<double>(), 1e-3 * std::abs(a[i].get<double>()) + 1e-4) << "step " << i;
  }
}

// PyTorch's AMP + fused path: fp16 with the scaler's scale and inf flag in the fused kernel.
TEST(GpuConfigs, AmpFp16WithFusedAdamUnscalesInTheKernel) {
  REQUIRE_CUDA();
  const nlohmann::json result = run("mlp/cuda/amp-fp16/pinned/adam-fused");
  EXPECT_EQ(result["grad_scaler"]["unscaled_in_optimizer_steps"].get<int>(), result["grad_scaler"]["steps"].get<int>());
  EXPECT_TRUE(std::isfinite(result["loss"]["last"].get<double>()));
}

}  // namespace
}  // namespace gpubench
