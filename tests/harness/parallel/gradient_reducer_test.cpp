// The reducer on a one-rank Gloo group in this process: averages land in .grad and the
// bucket timings are recorded, with either way of taking a bucket's completion time.
#include "harness/parallel/gradient_reducer.h"

#include <gtest/gtest.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

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

}  // namespace
}  // namespace gpubench
