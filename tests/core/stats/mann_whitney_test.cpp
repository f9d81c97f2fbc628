#include "core/stats/mann_whitney.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpubench {
namespace {

// scipy.stats.mannwhitneyu documentation example (males vs females):
//   method="exact"      -> statistic 17.0, pvalue 0.1111111111111111
//   method="asymptotic" -> statistic 17.0, pvalue 0.11134688653314041
const std::vector<double> kMales = {19, 22, 16, 29, 24};
const std::vector<double> kFemales = {20, 11, 17, 12};

TEST(MannWhitney, MatchesScipyDocumentationExactExample) {
  const MannWhitneyResult r = mann_whitney_u(kMales, kFemales);
  EXPECT_TRUE(r.exact);  // no ties, a sample <= 8: scipy's "auto" picks exact
  EXPECT_DOUBLE_EQ(r.u_x, 17.0);
  EXPECT_DOUBLE_EQ(r.u_y, 3.0);
  // By hand: C(9,4) = 126 arrangements, 7 with U <= 3 (u = 0,1,2,3: 1+1+2+3), p = 2 * 7/126.
  EXPECT_NEAR(r.p_value, 0.1111111111111111, 1e-12);
}

TEST(MannWhitney, MatchesScipyDocumentationAsymptoticExample) {
  const MannWhitneyResult r = mann_whitney_u(kMales, kFemales, UTestMethod::asymptotic);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u_x, 17.0);
  EXPECT_NEAR(r.p_value, 0.11134688653314041, 1e-12);
}

TEST(MannWhitney, CompletelySeparatedSamplesGiveTheSmallestExactPValue) {
  // All 5 of y above all 5 of x: one arrangement of C(10,5) = 252 on each tail.
  const MannWhitneyResult r = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u_x, 0.0);
  EXPECT_DOUBLE_EQ(r.u_y, 25.0);
  EXPECT_NEAR(r.p_value, 2.0 / 252.0, 1e-15);
  EXPECT_NEAR(mann_whitney_min_p_value(5, 5), 2.0 / 252.0, 1e-15);
}

TEST(MannWhitney, SmallExactDistributionByHand) {
  // 3 vs 3: C(6,3) = 20 arrangements; U = 0 and U = 1 have one arrangement each.
  EXPECT_NEAR(mann_whitney_u({1, 2, 3}, {4, 5, 6}).p_value, 2.0 * 1 / 20, 1e-15);
  const MannWhitneyResult r = mann_whitney_u({1, 2, 4}, {3, 5, 6});
  EXPECT_DOUBLE_EQ(r.u_x, 1.0);  // only 4 > 3
  EXPECT_NEAR(r.p_value, 2.0 * 2 / 20, 1e-15);
}

TEST(MannWhitney, TiesUseMidRanksAndTheTieCorrectedNormalApproximation) {
  // Pooled: 1 | 2 2 2 | 3 3 | 4 | 5 5 -> mid-ranks 1 | 3 3 3 | 5.5 5.5 | 7 | 8.5 8.5.
  // R_x = 1 + 3 + 3 + 5.5 = 12.5, U_x = 12.5 - 4*5/2 = 2.5, U_y = 20 - 2.5 = 17.5.
  // sum(t^3 - t) = 24 + 6 + 6 = 36; sigma^2 = 20/12 * (10 - 36/72) = 15.8333...
  // z = (17.5 - 10 - 0.5) / sqrt(15.8333) = 1.759186; p = 2 (1 - Phi(z)) = 0.078546
  // (the normal approximation of R's wilcox.test(c(1,2,2,3), c(2,3,4,5,5)): W = 2.5, p = 0.07855).
  const MannWhitneyResult r = mann_whitney_u({1, 2, 2, 3}, {2, 3, 4, 5, 5});
  EXPECT_TRUE(r.ties);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u_x, 2.5);
  EXPECT_DOUBLE_EQ(r.u_y, 17.5);
  const double z = 7.0 / std::sqrt(20.0 / 12.0 * 9.5);
  EXPECT_NEAR(z, 1.759186, 1e-6);
  EXPECT_NEAR(r.p_value, std::erfc(z / std::sqrt(2.0)), 1e-15);
  EXPECT_NEAR(r.p_value, 0.078546, 1e-6);
}

TEST(MannWhitney, IsSymmetricInItsArguments) {
  const std::vector<double> a = {10.1, 10.4, 9.8, 10.9, 10.2, 10.0, 9.7, 10.5, 10.3, 10.6};
  const std::vector<double> b = {10.8, 11.0, 10.7, 11.3, 10.9, 11.5, 10.6, 11.1, 11.2, 10.95};
  const MannWhitneyResult ab = mann_whitney_u(a, b), ba = mann_whitney_u(b, a);
  EXPECT_DOUBLE_EQ(ab.p_value, ba.p_value);
  EXPECT_DOUBLE_EQ(ab.u_x, ba.u_y);
  EXPECT_DOUBLE_EQ(ab.u_x + ab.u_y, 100.0);
}

TEST(MannWhitney, ExactAndAsymptoticAgreeRoughlyAtEightPerSide) {
  const std::vector<double> a = {1, 3, 5, 7, 9, 11, 13, 15};
  const std::vector<double> b = {4, 6, 8, 10, 12, 14, 16, 18};
  const double exact = mann_whitney_u(a, b, UTestMethod::exact).p_value;
  const double normal = mann_whitney_u(a, b, UTestMethod::asymptotic).p_value;
  EXPECT_TRUE(mann_whitney_u(a, b).exact);
  EXPECT_NEAR(exact, normal, 0.01);
  EXPECT_GT(exact, 0.05);
}

TEST(MannWhitney, DegenerateInputsGivePValueOne) {
  EXPECT_DOUBLE_EQ(mann_whitney_u({}, {1, 2, 3}).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u({2, 2, 2, 2, 2, 2, 2, 2, 2, 2}, {2, 2, 2, 2, 2, 2, 2, 2, 2, 2}).p_value, 1.0);
}

TEST(MannWhitney, MinimumPValueTellsWhenTheTestHasNoPower) {
  EXPECT_NEAR(mann_whitney_min_p_value(4, 4), 2.0 / 70.0, 1e-15);  // cannot reach alpha 0.01
  EXPECT_NEAR(mann_whitney_min_p_value(3, 20), 2.0 / 1771.0, 1e-15);
  EXPECT_LT(mann_whitney_min_p_value(100, 100), 1e-50);
  EXPECT_DOUBLE_EQ(mann_whitney_min_p_value(0, 10), 1.0);
}

TEST(NormalQuantile, MatchesTabulatedValues) {
  EXPECT_NEAR(normal_upper_quantile(0.025), 1.959963985, 1e-8);
  EXPECT_NEAR(normal_upper_quantile(0.005), 2.575829304, 1e-8);
  EXPECT_NEAR(normal_upper_quantile(0.5), 0.0, 1e-12);
}

}  // namespace
}  // namespace gpubench
