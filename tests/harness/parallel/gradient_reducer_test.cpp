// The reducer on a one-rank Gloo group in this process: averages land in .grad and the
// bucket timings are recorded, with either way of taking a bucket's completion time.
#include "harness/parallel/gradient_reducer.h"

#include <gtest/gtest.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include "support/copying_group.h"

namespace gpubench {
namespace {

// A Gloo group of one rank, its store in this process.
auto one_rank_gloo_group() {
  GroupRequest request;
  request.backend = "gloo";
  request.store = c10::make_intrusive<c10d::HashStore>();
  request.timeout = std::chrono::milliseconds(10000);
  return make_gloo_group(request);
}

void reduce_one_step(bool completion_callback_is_exact) {
  const auto group = one_rank_gloo_group();
  auto w = torch::zeros({4}, torch::requires_grad());
  auto b = torch::zeros({2}, torch::requires_grad());
  ReducerOptions options;
  options.completion_callback_is_exact = completion_callback_is_exact;
  auto recorder = std::make_shared<CommRecorder>();
  recorder->step_begin(0, true);
  GradientReducer reducer({w, b}, plan_buckets({w, b}, 8, 8), *group, options, recorder);
  reducer.begin_backward(false);
  ((w * 3).sum() + (b * 2).sum()).backward();
  reducer.finish_backward();
  EXPECT_TRUE(torch::equal(w.grad(), torch::full({4}, 3.0)));
  EXPECT_TRUE(torch::equal(b.grad(), torch::full({2}, 2.0)));
  EXPECT_EQ(recorder->samples()["steps"], 1) << recorder->samples().dump();
}

TEST(GradientReducer, AveragesWithTheCallbacksCompletionTime) { reduce_one_step(true); }

// NCCL's way (completion taken when the bounded wait returns): it called
// torch::cuda::synchronize(), a device-wide sync that also waited for the pinned prefetch
// copy, and, with no GPU, threw. Only the work's own completion is waited for now.
TEST(GradientReducer, TakesTheCompletionTimeWithoutADeviceSync) { reduce_one_step(false); }

// Gradient accumulation: three micro-batches, the first two no_sync (never announced), the
// last announced as accumulated. The bucket must hold the whole sum (what .grad held plus
// the last backward's), and one all-reduce runs for the optimizer step.
TEST(GradientReducer, AnAccumulatedBackwardReducesTheWholeSum) {
  const auto group = one_rank_gloo_group();
  auto w = torch::zeros({4}, torch::requires_grad());
  auto recorder = std::make_shared<CommRecorder>();
  recorder->step_begin(0, true);
  GradientReducer reducer({w}, plan_buckets({w}, 8, 8), *group, ReducerOptions{}, recorder);
  (w * 1).sum().backward();  // no_sync micro-batches: the hooks ignore them
  (w * 2).sum().backward();
  reducer.begin_backward(/*accumulated=*/true);
  (w * 4).sum().backward();
  reducer.finish_backward();
  EXPECT_TRUE(torch::equal(w.grad(), torch::full({4}, 7.0))) << w.grad();
  EXPECT_EQ(recorder->samples()["steps"], 1) << recorder->samples().dump();
}

// A channels-last parameter that got no gradient this step (issue 47, finding 11): its
// zeros were given as a contiguous clone of the bucket, and CUDA's fused Adam refuses a
// gradient whose strides differ from its parameter's. It is laid out like the parameter now,
// as is the gradient of one that did take part.
TEST(GradientReducer, AGradientItMakesIsLaidOutLikeItsParameter) {
  const auto group = one_rank_gloo_group();
  auto used = torch::zeros({2, 3, 2, 2}).contiguous(torch::MemoryFormat::ChannelsLast).requires_grad_();
  auto unused = torch::zeros({2, 3, 2, 2}).contiguous(torch::MemoryFormat::ChannelsLast).requires_grad_();
  const torch::Tensor weights = torch::arange(24, torch::kFloat).view({2, 3, 2, 2});
  GradientReducer reducer({used, unused}, plan_buckets({used, unused}, 1 << 20, 1 << 20), *group, ReducerOptions{},
                          nullptr);
  reducer.begin_backward(false);
  (used * weights).sum().backward();
  reducer.finish_backward();
  ASSERT_TRUE(unused.grad().defined());
  EXPECT_EQ(unused.grad().strides(), unused.strides());
  EXPECT_TRUE(torch::equal(unused.grad(), torch::zeros({2, 3, 2, 2})));
  EXPECT_EQ(used.grad().strides(), used.strides());
  EXPECT_TRUE(torch::equal(used.grad(), weights));
}

// On NCCL (stream_waits), as PyTorch's DDP does, the buckets' waits make only the stream
// wait: the host goes on into the optimizer. The next backward's start checks the step's
// last all-reduce on the host, bounded, and records the step then, its exposed part
// unknown (no host wait saw it).
TEST(GradientReducer, OnNcclTheBucketsWaitOnTheStreamAndTheNextBackwardChecksThem) {
  test_support::CopyingGroup group;
  auto w = torch::zeros({4}, torch::requires_grad());
  auto b = torch::zeros({2}, torch::requires_grad());
  ReducerOptions options;
  options.completion_callback_is_exact = false;
  options.stream_waits = true;
  auto recorder = std::make_shared<CommRecorder>();
  recorder->step_begin(0, true);
  GradientReducer reducer({w, b}, plan_buckets({w, b}, 8, 8), group, options, recorder);
  reducer.begin_backward(false);
  ((w * 3).sum() + (b * 2).sum()).backward();
  reducer.finish_backward();
  EXPECT_TRUE(torch::equal(w.grad(), torch::full({4}, 3.0)));
  EXPECT_TRUE(torch::equal(b.grad(), torch::full({2}, 2.0)));
  EXPECT_EQ(group.host_waits, 0) << "a host wait at the end of backward";
  EXPECT_EQ(group.stream_waits, 2) << "two buckets";
  EXPECT_EQ(recorder->samples()["steps"], 0) << "recorded before its check";
  reducer.begin_backward(false);  // the next step's start
  EXPECT_EQ(group.host_waits, 1) << "the last bucket's all-reduce, on the host, bounded";
  const auto samples = recorder->samples();
  ASSERT_EQ(samples["steps"], 1);
  EXPECT_LT(samples["exposed_ms"][0].get<double>(), 0) << "no host wait saw the exposed part";
}

}  // namespace
}  // namespace gpubench
