#include "core/stats/shift_estimate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/stats/mann_whitney.h"

namespace gpubench {
namespace {

TEST(HodgesLehmann, MedianOfPairwiseDifferencesByHand) {
  // y - x: {3,2,1, 4,3,2, 5,4,3}: median 3.
  EXPECT_DOUBLE_EQ(hodges_lehmann_shift({1, 2, 3}, {4, 5, 6}, 0.95).estimate, 3.0);
  // Even count: {1,2} vs {10,20}: differences 9, 8, 19, 18 -> (9 + 18) / 2.
  EXPECT_DOUBLE_EQ(hodges_lehmann_shift({1, 2}, {10, 20}, 0.95).estimate, 13.5);
}

TEST(HodgesLehmann, TooFewSamplesGiveTheWholeRangeOfDifferences) {
  const ShiftEstimate s = hodges_lehmann_shift({1, 2, 3}, {4, 5, 6}, 0.99);
  EXPECT_DOUBLE_EQ(s.low, 1.0);
  EXPECT_DOUBLE_EQ(s.high, 5.0);
}

// The bisection on values must give the same order statistics as listing every pair.
TEST(HodgesLehmann, MatchesBruteForceOrderStatistics) {
  std::mt19937 rng(1234);
  std::normal_distribution<double> noise(0.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> x(10 + trial), y(15 + 2 * trial);
    for (double& v : x) v = std::round(noise(rng) * 10) / 10;  // rounded: ties happen
    for (double& v : y) v = std::round((noise(rng) + 0.5) * 10) / 10;
    std::vector<double> d;
    for (double a : x)
      for (double b : y) d.push_back(b - a);
    std::sort(d.begin(), d.end());
    const std::size_t n = d.size();
    const double median = n % 2 ? d[n / 2] : 0.5 * (d[n / 2 - 1] + d[n / 2]);

    const ShiftEstimate s = hodges_lehmann_shift(x, y, 0.95);
    EXPECT_NEAR(s.estimate, median, 1e-12);
    // The interval ends are order statistics, symmetric in rank, around the estimate.
    const auto rank_of = [&](double value) { return std::lower_bound(d.begin(), d.end(), value - 1e-12) - d.begin(); };
    EXPECT_NEAR(s.low, d[rank_of(s.low)], 1e-12);
    EXPECT_NEAR(s.high, d[rank_of(s.high)], 1e-12);
    EXPECT_LE(s.low, s.estimate);
    EXPECT_GE(s.high, s.estimate);
  }
}

TEST(HodgesLehmann, IntervalCoversTheTrueShiftAtItsConfidence) {
  std::mt19937 rng(99);
  std::normal_distribution<double> noise(0.0, 1.0);
  int covered = 0;
  const int trials = 400;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<double> x(30), y(40);
    for (double& v : x) v = noise(rng);
    for (double& v : y) v = noise(rng) + 0.7;
    const ShiftEstimate s = hodges_lehmann_shift(x, y, 0.95);
    if (s.low <= 0.7 && 0.7 <= s.high) ++covered;
  }
  EXPECT_GE(covered, trials * 0.92);
  EXPECT_LE(covered, trials * 0.98);
}

TEST(HodgesLehmann, IntervalExcludesZeroWhenTheTestRejects) {
  // The interval inverts the U test: p < 1 - confidence <=> 0 outside the interval
  // (up to the continuity correction, which only makes the test more conservative).
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> x(25), y(25);
    for (double& v : x) v = noise(rng);
    for (double& v : y) v = noise(rng) + 0.5;
    const ShiftEstimate s = hodges_lehmann_shift(x, y, 0.99);
    if (mann_whitney_u(x, y).p_value < 0.01) {
      EXPECT_TRUE(s.low > 0 || s.high < 0) << "trial " << trial;
    }
  }
}

}  // namespace
}  // namespace gpubench
