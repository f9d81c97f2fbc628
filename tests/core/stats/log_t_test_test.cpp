#include "core/stats/log_t_test.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "core/stats/mann_whitney.h"
#include "core/stats/student_t.h"

namespace gpubench {
namespace {

std::vector<double> exps(const std::vector<double>& logs) {
  std::vector<double> out;
  for (double v : logs) out.push_back(std::exp(v));
  return out;
}

TEST(LogTTest, PairedMatchesTheHandComputedTest) {
  // Log differences log(1.1) * {1, 2, 3}: mean 2 log 1.1, sd log 1.1, t = 2 sqrt(3), df 2,
  // and for df 2 the cdf is 1/2 + t / (2 sqrt(2 + t^2)).
  const std::vector<double> base = {100, 100, 100}, next = {110, 121, 133.1};
  const LogTTest test = log_t_test(base, next, 0.95, /*paired=*/true);
  const double t = 2 * std::sqrt(3.0);
  EXPECT_NEAR(test.shift.estimate, 0.21, 1e-12);
  EXPECT_EQ(test.df, 2);
  EXPECT_NEAR(test.p_value, 2 * (0.5 - t / (2 * std::sqrt(2 + t * t))), 1e-10);
  const double half = 4.302652730 * std::log(1.1) / std::sqrt(3.0);  // t_{0.975, 2} * se
  EXPECT_NEAR(test.shift.low, std::expm1(2 * std::log(1.1) - half), 1e-8);
  EXPECT_NEAR(test.shift.high, std::expm1(2 * std::log(1.1) + half), 1e-8);
}

TEST(LogTTest, WelchUsesSatterthwaiteDegreesOfFreedom) {
  // logs {1,2,3} vs {4,5,6,7}: variances 1 and 5/3, df = 0.75^2 / ((1/3)^2/2 + (5/12)^2/3).
  const LogTTest test = log_t_test(exps({1, 2, 3}), exps({4, 5, 6, 7}), 0.99, /*paired=*/false);
  EXPECT_NEAR(test.shift.estimate, std::expm1(3.5), 1e-9);
  EXPECT_NEAR(test.df, 0.5625 / (1.0 / 18 + 25.0 / 432), 1e-12);
  const double t = 3.5 / std::sqrt(0.75);
  EXPECT_NEAR(test.p_value, 2 * (1 - student_t_cdf(t, test.df)), 1e-12);
}

TEST(LogTTest, ReversingTheSidesInvertsTheRatio) {
  const std::vector<double> a = {10, 11, 10.5, 10.2}, b = {12, 12.5, 11.8, 12.9};
  for (bool paired : {false, true}) {
    const LogTTest forward = log_t_test(a, b, 0.95, paired), back = log_t_test(b, a, 0.95, paired);
    EXPECT_NEAR((1 + forward.shift.estimate) * (1 + back.shift.estimate), 1, 1e-12);
    EXPECT_NEAR((1 + forward.shift.low) * (1 + back.shift.high), 1, 1e-12);
    EXPECT_NEAR(forward.p_value, back.p_value, 1e-12);
  }
}

TEST(LogTTest, IdenticalRunsAreNoChangeAndAConstantFactorIsCertain) {
  const LogTTest same = log_t_test({5, 5, 5}, {5, 5, 5}, 0.99, false);
  EXPECT_EQ(same.p_value, 1);
  EXPECT_EQ(same.shift.estimate, 0);
  const LogTTest doubled = log_t_test({5, 6, 7}, {10, 12, 14}, 0.99, true);
  EXPECT_LT(doubled.p_value, 1e-20);
  EXPECT_NEAR(doubled.shift.low, 1, 1e-9);
}

// Runs that differ by more than their steps do (the machine's state changes between runs):
// each run's steps share one lognormal run offset.
struct RunNoise {
  double run_sd = 0.08;   // between runs, in log units
  double step_cv = 0.03;  // within a run
};

std::vector<std::vector<double>> simulate_runs(std::mt19937& rng, std::size_t runs, std::size_t steps, double level,
                                               const RunNoise& noise) {
  std::normal_distribution<double> run_offset(0, noise.run_sd), step(0, noise.step_cv);
  std::vector<std::vector<double>> out(runs);
  for (auto& run : out) {
    const double offset = run_offset(rng);
    for (std::size_t s = 0; s < steps; ++s) run.push_back(level * std::exp(offset + step(rng)));
  }
  return out;
}

double median_of(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

TEST(LogTTest, RunLevelFalseAlarmsStayAtAlphaWhereThePerStepUTestFailsOften) {
  // A/A: no real change, runs drift by 8%. The per-step U test (steps as if independent)
  // calls most pairs of runs "different"; the run-level t-test keeps to its alpha.
  std::mt19937 rng(7);
  const double alpha = 0.05;
  int t_alarms = 0, u_alarms = 0;
  const int trials = 2000;
  for (int trial = 0; trial < trials; ++trial) {
    const auto base = simulate_runs(rng, 5, 30, 10, {}), next = simulate_runs(rng, 5, 30, 10, {});
    std::vector<double> base_medians, next_medians;
    for (const auto& run : base) base_medians.push_back(median_of(run));
    for (const auto& run : next) next_medians.push_back(median_of(run));
    if (log_t_test(base_medians, next_medians, 1 - alpha, false).p_value < alpha) ++t_alarms;
    if (mann_whitney_u(base[0], next[0]).p_value < alpha) ++u_alarms;
  }
  EXPECT_GT(t_alarms, trials * alpha * 0.6);
  EXPECT_LT(t_alarms, trials * alpha * 1.4);
  EXPECT_GT(u_alarms, trials / 2) << "why one run a side cannot judge run-to-run drift";
}

TEST(LogTTest, PairingCancelsDriftSharedByBackToBackRuns) {
  // Each pair shares a 20% machine-state offset; NEW is truly 10% slower. Paired runs see
  // the 10%; unpaired ones drown it in the drift.
  std::mt19937 rng(11);
  std::normal_distribution<double> drift(0, 0.2), noise(0, 0.01);
  std::vector<double> base, next;
  for (int i = 0; i < 5; ++i) {
    const double shared = drift(rng);
    base.push_back(10 * std::exp(shared + noise(rng)));
    next.push_back(11 * std::exp(shared + noise(rng)));
  }
  const LogTTest paired = log_t_test(base, next, 0.99, true);
  const LogTTest unpaired = log_t_test(base, next, 0.99, false);
  EXPECT_LT(paired.p_value, 0.01);
  EXPECT_LT(paired.shift.low, 0.1);
  EXPECT_GT(paired.shift.high, 0.1);
  EXPECT_GT(unpaired.p_value, 0.1);
}

TEST(LogTTest, BadInputThrows) {
  EXPECT_THROW(log_t_test({1}, {1, 2}, 0.95, false), std::invalid_argument);
  EXPECT_THROW(log_t_test({1, 2, 3}, {1, 2}, 0.95, true), std::invalid_argument);
  EXPECT_THROW(log_t_test({1, 0}, {1, 2}, 0.95, false), std::invalid_argument);
  EXPECT_THROW(log_t_test({1, 2}, {1, 2}, 1.0, false), std::invalid_argument);
}

}  // namespace
}  // namespace gpubench
