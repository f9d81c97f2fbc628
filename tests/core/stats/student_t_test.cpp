#include "core/stats/student_t.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace gpubench {
namespace {

TEST(StudentT, QuantilesMatchPublishedTables) {
  // scipy.stats.t.ppf values.
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706204736, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.995, 2), 9.924843201, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776445105, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.995, 4), 4.604094871, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.975, 10), 2.228138852, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.975, 1e7), 1.959963985, 1e-5) << "large df is the normal";
  EXPECT_NEAR(student_t_quantile(0.025, 4), -2.776445105, 1e-8) << "symmetric";
  EXPECT_EQ(student_t_quantile(0.5, 3), 0);
}

TEST(StudentT, CdfHasClosedFormsForOneAndTwoDegrees) {
  // df = 1 is the Cauchy: 1/2 + atan(t) / pi.  df = 2: 1/2 + t / (2 sqrt(2 + t^2)).
  for (double t : {-7.0, -1.0, 0.0, 0.3, 1.0, 4.5}) {
    EXPECT_NEAR(student_t_cdf(t, 1), 0.5 + std::atan(t) / M_PI, 1e-12) << t;
    EXPECT_NEAR(student_t_cdf(t, 2), 0.5 + t / (2 * std::sqrt(2 + t * t)), 1e-12) << t;
  }
  EXPECT_NEAR(student_t_cdf(2.0, 5), 0.9490302605850709, 1e-10);
}

TEST(StudentT, FractionalDegreesOfFreedomLieBetweenTheirNeighbours) {
  const double q = student_t_quantile(0.975, 7.5);
  EXPECT_LT(q, student_t_quantile(0.975, 7));
  EXPECT_GT(q, student_t_quantile(0.975, 8));
  EXPECT_NEAR(student_t_cdf(q, 7.5), 0.975, 1e-10) << "quantile inverts the cdf";
}

TEST(StudentT, IncompleteBetaMatchesTheBinomialSum) {
  // For integers, I_x(a, b) = P(Binomial(a + b - 1, x) >= a): I_0.5(2, 3) = 11/16.
  EXPECT_NEAR(regularized_incomplete_beta(0.5, 2, 3), 11.0 / 16, 1e-12);
  EXPECT_NEAR(regularized_incomplete_beta(0.9, 2, 3), 1 - regularized_incomplete_beta(0.1, 3, 2), 1e-12);
  EXPECT_EQ(regularized_incomplete_beta(0, 2, 3), 0);
  EXPECT_EQ(regularized_incomplete_beta(1, 2, 3), 1);
}

TEST(StudentT, BadArgumentsThrow) {
  EXPECT_THROW(student_t_quantile(1, 4), std::invalid_argument);
  EXPECT_THROW(student_t_quantile(0.5, 0), std::invalid_argument);
  EXPECT_THROW(student_t_cdf(1, -1), std::invalid_argument);
  EXPECT_THROW(regularized_incomplete_beta(1.5, 1, 1), std::invalid_argument);
}

}  // namespace
}  // namespace gpubench
