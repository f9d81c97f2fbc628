#include <gtest/gtest.h>

#include "workloads/data/synthetic_images.h"
#include "workloads/data/synthetic_tokens.h"

namespace gpubench {
namespace {

TEST(SyntheticImages, DeterministicBySeedAndDifferentAcrossSeeds) {
  const auto a = make_class_pattern_images(64, {1, 28, 28}, 10, 7);
  const auto b = make_class_pattern_images(64, {1, 28, 28}, 10, 7);
  const auto c = make_class_pattern_images(64, {1, 28, 28}, 10, 8);
  EXPECT_TRUE(torch::equal(a.inputs(), b.inputs()));
  EXPECT_TRUE(torch::equal(a.targets(), b.targets()));
  EXPECT_FALSE(torch::equal(a.inputs(), c.inputs()));
  EXPECT_EQ(a.inputs().sizes(), (std::vector<int64_t>{64, 1, 28, 28}));
  EXPECT_EQ(a.targets().dtype(), torch::kInt64);
  EXPECT_GE(a.targets().min().item<int64_t>(), 0);
  EXPECT_LT(a.targets().max().item<int64_t>(), 10);
}

TEST(SyntheticImages, ClassesCarryASignal) {
  // Same-class samples correlate through their pattern; across classes they do not.
  const auto data = make_class_pattern_images(2000, {3, 32, 32}, 10, 1);
  const auto x = data.inputs().flatten(1);
  const auto y = data.targets();
  const auto class0 = x.index({y == 0}).mean(0);
  const auto class1 = x.index({y == 1}).mean(0);
  const auto second0 = x.index({y == 0}).narrow(0, 0, 50).mean(0);
  EXPECT_GT(torch::cosine_similarity(class0, second0, 0).item<double>(),
            torch::cosine_similarity(class1, second0, 0).item<double>());
}

TEST(MarkovTokens, DeterministicShiftedAndStructured) {
  const auto a = make_markov_token_stream(16, 128, 4096, 3);
  const auto b = make_markov_token_stream(16, 128, 4096, 3);
  EXPECT_TRUE(torch::equal(a.inputs(), b.inputs()));
  EXPECT_FALSE(torch::equal(a.inputs(), make_markov_token_stream(16, 128, 4096, 4).inputs()));
  // targets are the inputs shifted by one token
  EXPECT_TRUE(torch::equal(a.inputs().flatten().narrow(0, 1, 16 * 128 - 1), a.targets().flatten().narrow(0, 0, 16 * 128 - 1)));
  EXPECT_LT(a.inputs().max().item<int64_t>(), 4096);
  // Structure: each token is followed by few distinct tokens, far fewer than uniform would give.
  const auto data = make_markov_token_stream(256, 128, 64, 5);
  const auto in = data.inputs().flatten(), out = data.targets().flatten();
  const auto pairs = std::get<0>(at::_unique(in * 64 + out));
  // 32768 uniform transitions would cover nearly all 4096 pairs.
  EXPECT_LT(pairs.numel(), 64 * 64 / 2);
}

TEST(TensorDataset, GathersBatchesByIndex) {
  TensorDataset data(torch::arange(10).view({10, 1}).to(torch::kFloat32), torch::arange(10));
  const auto batch = data.read_batch(std::vector<size_t>{3, 7, 1});
  EXPECT_TRUE(torch::equal(batch.target, torch::tensor({3, 7, 1}, torch::kInt64)));
  EXPECT_EQ(batch.data[1].item<float>(), 7.0f);
  EXPECT_EQ(data.size(), 10u);
  EXPECT_THROW(TensorDataset(torch::zeros({3, 1}), torch::zeros({4})), std::invalid_argument);
}

}  // namespace
}  // namespace gpubench
