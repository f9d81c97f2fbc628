// A CUDA Graph capture that fails (issue 26, defect 6) on a real device (label gpu): the
// allocator state it leaves must not reach the GPU work that follows in the same process.
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

const torch::Device kCuda0(torch::kCUDA, 0);
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

}  // namespace
}  // namespace gpubench
