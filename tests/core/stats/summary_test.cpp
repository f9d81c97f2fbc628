#include "core/stats/summary.h"

#include <gtest/gtest.h>

#include "core/stats/stopping_rule.h"

namespace gpubench {
namespace {

TEST(Summary, MedianPercentilesAndSpread) {
  const Summary s = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.p10, 1.4);
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_NEAR(s.stddev, 1.5811388, 1e-6);
  EXPECT_NEAR(s.cv(), 0.527046, 1e-6);
}

TEST(Summary, EmptyAndSingle) {
  EXPECT_EQ(summarize({}).count, 0u);
  const Summary one = summarize({7});
  EXPECT_DOUBLE_EQ(one.median, 7);
  EXPECT_DOUBLE_EQ(one.stddev, 0);
}

TEST(MedianInterval, CoversTheMedianAndNarrowsWithSamples) {
  std::vector<double> small, large;
  for (int i = 0; i < 10; ++i) small.push_back(100 + (i % 5));
  for (int i = 0; i < 400; ++i) large.push_back(100 + (i % 5));
  const auto a = median_confidence_interval(small), b = median_confidence_interval(large);
  EXPECT_LE(a.low, a.median);
  EXPECT_GE(a.high, a.median);
  EXPECT_LE(b.relative_half_width(), a.relative_half_width());
}

TEST(StoppingRule, ExactCountIgnoresNoiseAndBudget) {
  StoppingRule rule;
  rule.exact = true;
  rule.max_steps = 3;
  EXPECT_FALSE(should_stop(rule, {1, 1}, 1e9).stop);
  const auto decision = should_stop(rule, {1, 1, 1}, 0);
  EXPECT_TRUE(decision.stop);
  EXPECT_EQ(decision.reason, "steps");
}

TEST(StoppingRule, StopsOnTightIntervalBudgetOrMaxButNeverBeforeMin) {
  StoppingRule rule;
  rule.min_steps = 5;
  rule.max_steps = 50;
  rule.budget_s = 10;
  EXPECT_FALSE(should_stop(rule, {1, 1, 1}, 100).stop) << "below min_steps the budget does not stop it";
  EXPECT_EQ(should_stop(rule, {1, 2, 3, 4, 5}, 11).reason, "time_budget");
  const std::vector<double> steady(12, 10.0);
  EXPECT_EQ(should_stop(rule, steady, 0.1).reason, "ci_target");
  std::vector<double> noisy;
  for (int i = 0; i < 12; ++i) noisy.push_back(i % 2 ? 5.0 : 15.0);
  EXPECT_FALSE(should_stop(rule, noisy, 0.1).stop);
  EXPECT_EQ(should_stop(rule, std::vector<double>(50, 1.0), 0).reason, "max_steps");
}

TEST(StoppingRule, OneStepLongerThanTheWholeBudgetStopsBeforeMinSteps) {
  StoppingRule rule;
  rule.min_steps = 5;
  rule.budget_s = 10;
  EXPECT_FALSE(should_stop(rule, {}, 0).stop);
  EXPECT_FALSE(should_stop(rule, {9000}, 9).stop) << "a step within the budget still waits for min_steps";
  EXPECT_FALSE(should_stop(rule, {6000, 6000}, 12).stop) << "only a single step over the budget cuts min_steps";
  const auto decision = should_stop(rule, {12000}, 12);
  EXPECT_TRUE(decision.stop);
  EXPECT_EQ(decision.reason, "slow_step");
  rule.exact = true;
  rule.max_steps = 3;
  EXPECT_FALSE(should_stop(rule, {12000}, 12).stop) << "an exact count (--steps, DDP) is kept";
}

}  // namespace
}  // namespace gpubench
