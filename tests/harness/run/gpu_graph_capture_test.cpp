// A CUDA Graph capture on a real device (label gpu). One that fails (issue 26, defect 6):
// the allocator state it leaves must not reach the GPU work that follows in the same
// process; and what capture itself holds (issue 47, finding 2).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>

#include "core/device/cuda_memory_stats.h"
#include "core/device/torch_cuda.h"
#include "support/require_cuda.h"
#include "harness/run/cuda_graph_step.h"

namespace gpubench {
namespace {

using test_support::kCuda0;

constexpr std::int64_t kBlockFloats = 16 << 20;  // 64 MiB: its own segment, far above rounding

bool current_stream_is_capturing() {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  EXPECT_EQ(cudaStreamIsCapturing(c10::cuda::getCurrentCUDAStream().stream(), &status), cudaSuccess);
  return status != cudaStreamCaptureStatusNone;
}

// The body allocates in the graph's private pool, then reads a value back (a host sync,
// which CUDA refuses during capture). Before the fix, CUDAGraph::capture_end threw before
// telling the allocator the capture was over: the pool stayed in use, and its 64 MiB
// segment stayed reserved through every empty_cache after.
TEST(GpuGraphCapture, AFailedCaptureReleasesItsPoolAndCanBeRetried) {
  REQUIRE_CUDA();
  CudaGraphStep graph(kCuda0);
  const torch::Tensor x = torch::ones({1024}, kCuda0);
  torch::cuda::synchronize();
  empty_cuda_cache();
  const std::int64_t reserved_before = cuda_allocator_stats(0).reserved_bytes;

  EXPECT_ANY_THROW(graph.capture([&] {
    const torch::Tensor big = torch::empty({kBlockFloats}, kCuda0);
    big.fill_(1.0);
    (void)big.sum().item<float>();
  }));
  EXPECT_FALSE(graph.captured());
  EXPECT_FALSE(current_stream_is_capturing());
  torch::cuda::synchronize();
  empty_cuda_cache();
  EXPECT_EQ(cuda_allocator_stats(0).reserved_bytes, reserved_before)
      << "the failed capture's private pool kept its memory";

  // Eager work on the same stream, then a second capture that replays correctly.
  const torch::Tensor eager = torch::empty({kBlockFloats}, kCuda0).fill_(2.0);
  EXPECT_EQ(eager.sum().item<double>(), 2.0 * kBlockFloats);
  torch::Tensor out = torch::zeros({1024}, kCuda0);
  graph.capture([&] { out.copy_(x * 3); });
  ASSERT_TRUE(graph.captured());
  graph.replay();
  torch::cuda::synchronize();
  EXPECT_EQ(out.sum().item<double>(), 3.0 * 1024);
}

// What the eager warm-up left cached is released before capture (issue 47, finding 2), as
// torch.cuda.graph does: the graph's private pool cannot use the normal pool's cached
// blocks, so a step that fills most of the GPU needed a second set of activations. Here a
// 256 MiB block freed before capture and a 256 MiB block the body allocates: before the
// fix both stayed reserved after capture.
TEST(GpuGraphCapture, TheCacheIsReleasedBeforeCapture) {
  REQUIRE_CUDA();
  constexpr std::int64_t kFloats = 64 << 20;  // 256 MiB
  CudaGraphStep graph(kCuda0);
  torch::cuda::synchronize();
  empty_cuda_cache();
  const std::int64_t reserved_before = cuda_allocator_stats(0).reserved_bytes;
  { torch::empty({kFloats}, kCuda0).fill_(1.0); }  // freed: cached in the normal pool
  torch::cuda::synchronize();
  ASSERT_GE(cuda_allocator_stats(0).reserved_bytes - reserved_before, 4 * kFloats);
  torch::Tensor out = torch::zeros({1}, kCuda0);
  graph.capture([&] { out.copy_(torch::empty({kFloats}, kCuda0).fill_(2.0).narrow(0, kFloats - 1, 1)); });
  ASSERT_TRUE(graph.captured());
  const std::int64_t held = cuda_allocator_stats(0).reserved_bytes - reserved_before;
  EXPECT_LT(held, 2 * 4 * kFloats) << "the warm-up's cached block outlived the capture beside the graph's pool";
  graph.replay();
  torch::cuda::synchronize();
  EXPECT_EQ(out.item<double>(), 2.0);
}

}  // namespace
}  // namespace gpubench
