#include "harness/parallel/bucket_plan.h"

#include <gtest/gtest.h>

#include "workloads/workload.h"

namespace gpubench {
namespace {

std::vector<torch::Tensor> mlp_parameters() { return make_workload("mlp")->make_model().module->parameters(); }

// mlp parameters in definition order: fc1.w (784x1024), fc1.b, fc2.w (1024x1024), fc2.b,
// fc3.w (1024x10), fc3.b.
TEST(BucketPlan, DefaultCapGivesPyTorchsLayoutForTheMlp) {
  const auto parameters = mlp_parameters();
  const BucketPlan plan = plan_buckets(parameters, 25 << 20);
  // Reverse order; the first bucket closes at 1 MiB, once fc2.w (4 MiB) is in it.
  ASSERT_EQ(plan.buckets.size(), 2u);
  EXPECT_EQ(plan.buckets[0].parameters, (std::vector<std::size_t>{5, 4, 3, 2}));
  EXPECT_EQ(plan.buckets[1].parameters, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(plan.buckets[0].bytes, (10 + 10 * 1024 + 1024 + 1024 * 1024) * 4);
  EXPECT_EQ(plan.buckets[1].bytes, (1024 + 784 * 1024) * 4);
  EXPECT_EQ(plan.buckets[0].offsets, (std::vector<std::int64_t>{0, 10, 10 + 10240, 10 + 10240 + 1024}));
  EXPECT_EQ(plan.bucket_of, (std::vector<std::size_t>{1, 1, 0, 0, 0, 0}));
  const auto json = plan.to_json();
  EXPECT_EQ(json["buckets"], 2);
  EXPECT_EQ(json["bucket_cap_bytes"], 25 << 20);
}

TEST(BucketPlan, SmallCapSplitsAndALargeParameterGetsItsOwnBucket) {
  const BucketPlan plan = plan_buckets(mlp_parameters(), 64 << 10, 64 << 10);
  // fc3.b + fc3.w (41 KB) + fc2.b (4 KB) stay under 64 KiB, fc2.w closes that bucket; fc1.b, fc1.w.
  ASSERT_EQ(plan.buckets.size(), 2u);
  const BucketPlan tiny = plan_buckets(mlp_parameters(), 1024, 1024);
  EXPECT_EQ(tiny.buckets.size(), 5u) << "fc3.b+fc3.w, fc2.b, fc2.w, fc1.b, fc1.w";
  for (const auto& bucket : tiny.buckets) EXPECT_GE(bucket.bytes, 1024) << "each bucket reaches its cap";
}

TEST(BucketPlan, DtypeChangeClosesABucketAndFrozenParametersAreLeftOut) {
  std::vector<torch::Tensor> parameters = {torch::zeros({4}, torch::requires_grad()),
                                           torch::zeros({4}, torch::dtype(torch::kDouble).requires_grad(true)),
                                           torch::zeros({4})};
  const BucketPlan plan = plan_buckets(parameters, 1 << 20);
  ASSERT_EQ(plan.buckets.size(), 2u);
  EXPECT_EQ(plan.buckets[0].parameters, (std::vector<std::size_t>{1}));
  EXPECT_EQ(plan.buckets[1].parameters, (std::vector<std::size_t>{0}));
  EXPECT_THROW(plan_buckets(parameters, 0), std::invalid_argument);
}

}  // namespace
}  // namespace gpubench
