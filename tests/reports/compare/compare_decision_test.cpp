#include "reports/compare/compare_decision.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <random>

#include "reports/compare/compare_metric.h"

namespace gpubench {
namespace {

// Simulated per-step measurements. Noise levels seen on shared machines: CV 3-10%.
enum class Shape { lognormal, normal };

struct Noise {
  Shape shape = Shape::lognormal;
  double cv = 0.05;
  double outlier_rate = 0;  // fraction of steps hit by a stall (another tenant, a page fault...)
  double outlier_factor = 1.5;
};

// `count` values with the given mean and noise; stalls make a value `outlier_factor`
// worse in the direction of the metric (longer step or fewer samples/s).
std::vector<double> draw(std::mt19937& rng, std::size_t count, double mean, const Noise& noise, bool higher_is_better) {
  std::vector<double> values(count);
  const double sigma = std::sqrt(std::log(1 + noise.cv * noise.cv));
  std::lognormal_distribution<double> lognormal(std::log(mean) - sigma * sigma / 2, sigma);  // mean = `mean`
  std::normal_distribution<double> normal(mean, noise.cv * mean);
  std::bernoulli_distribution stall(noise.outlier_rate);
  for (double& v : values) {
    v = noise.shape == Shape::lognormal ? lognormal(rng) : normal(rng);
    if (noise.outlier_rate > 0 && stall(rng))
      v = higher_is_better ? v / noise.outlier_factor : v * noise.outlier_factor;
  }
  return values;
}

struct Scenario {
  const char* name;
  std::uint32_t seed;
  std::size_t n_base, n_next;
  Noise noise;
  double next_mean_ratio;  // mean of NEW / mean of BASE
  std::string metric = "samples_per_s";
  double threshold = 0.05;
};

struct Rates {
  int trials = 0, regressions = 0, improvements = 0;
  // What a point-estimate rule (p < alpha and the median worse by >= threshold) would
  // have flagged, for comparison with the interval rule compare uses.
  int median_rule_regressions = 0;
  double regression_rate() const { return static_cast<double>(regressions) / trials; }
  double improvement_rate() const { return static_cast<double>(improvements) / trials; }
};

Rates run(const Scenario& s, int trials) {
  std::mt19937 rng(s.seed);
  const CompareMetric& metric = find_compare_metric(s.metric);
  CompareOptions options;
  options.metric = s.metric;
  options.threshold = s.threshold;
  Rates rates;
  for (int t = 0; t < trials; ++t) {
    const auto base = draw(rng, s.n_base, 1000.0, s.noise, metric.higher_is_better);
    const auto next = draw(rng, s.n_next, 1000.0 * s.next_mean_ratio, s.noise, metric.higher_is_better);
    const ConfigComparison c = compare_values("sim", base, next, metric, options);
    EXPECT_EQ(c.basis, DecisionBasis::u_test);
    ++rates.trials;
    if (c.verdict == Verdict::regression) ++rates.regressions;
    if (c.verdict == Verdict::improvement) ++rates.improvements;
    const double worse_by = metric.higher_is_better ? -*c.median_change : *c.median_change;
    if (*c.p_value < options.alpha && worse_by >= options.threshold) ++rates.median_rule_regressions;
  }
  std::cout << "[ rates    ] " << s.name << ": " << rates.regressions << "/" << rates.trials << " regressions, "
            << rates.improvements << "/" << rates.trials
            << " improvements (point-estimate rule: " << rates.median_rule_regressions << "/" << rates.trials
            << " regressions)\n";
  return rates;
}

// ---- A/A: both sides from the same distribution. At most 1% flagged as regression. ----
// The rule flags at most alpha / 2 = 0.5% per direction; 20000-trial runs of these
// scenarios measured 0.45-0.55% at CV 5-10% and 0% at CV 3% (where the threshold also
// holds noise back). 2000 trials per scenario make the 1% bound a real check: at a true
// 0.5% rate, 200 trials would give 3/200 = 1.5% about one time in twelve.
constexpr int kNullTrials = 2000;
// The power scenarios flag 99-100% (20000-trial runs); 500 trials per scenario.
constexpr int kPowerTrials = 500;

TEST(CompareDecisionAA, LognormalCv5Percent40PerSide) {
  const Rates r = run({"A/A lognormal cv5% n=40/40", 11, 40, 40, {Shape::lognormal, 0.05}, 1.0}, kNullTrials);
  EXPECT_LE(r.regression_rate(), 0.01);
  EXPECT_LE(r.improvement_rate(), 0.01);
}

TEST(CompareDecisionAA, NormalCv10Percent30PerSide) {
  const Rates r = run({"A/A normal cv10% n=30/30", 12, 30, 30, {Shape::normal, 0.10}, 1.0}, kNullTrials);
  EXPECT_LE(r.regression_rate(), 0.01);
  EXPECT_LE(r.improvement_rate(), 0.01);
}

TEST(CompareDecisionAA, LognormalCv3PercentWithStalls60PerSide) {
  const Rates r = run({"A/A lognormal cv3% + 3% stalls x1.5 n=60/60", 13, 60, 60, {Shape::lognormal, 0.03, 0.03}, 1.0},
                      kNullTrials);
  EXPECT_LE(r.regression_rate(), 0.01);
  EXPECT_LE(r.improvement_rate(), 0.01);
}

TEST(CompareDecisionAA, UnequalSampleCountsStepTimeMetric) {
  const Rates r =
      run({"A/A step_ms lognormal cv8% n=30/60", 14, 30, 60, {Shape::lognormal, 0.08}, 1.0, "step_ms"}, kNullTrials);
  EXPECT_LE(r.regression_rate(), 0.01);
  EXPECT_LE(r.improvement_rate(), 0.01);
}

TEST(CompareDecisionAA, ZeroThresholdStillBoundedByAlpha) {
  // With --threshold 0 any significant change counts: the U test alone keeps noise out.
  Scenario s{"A/A threshold 0 lognormal cv5% n=40/40", 15, 40, 40, {Shape::lognormal, 0.05}, 1.0};
  s.threshold = 0;
  EXPECT_LE(run(s, kNullTrials).regression_rate(), 0.01);
}

// ---- A real 5% slowdown at realistic noise: flagged in >= 95% of trials, default threshold 5%. ----

TEST(CompareDecisionPower, FivePercentFewerSamplesPerSecondCv3Percent40PerSide) {
  const Rates r = run({"5% slower (samples/s -5%) lognormal cv3% n=40/40", 21, 40, 40, {Shape::lognormal, 0.03}, 0.95},
                      kPowerTrials);
  EXPECT_GE(r.regression_rate(), 0.95);
  EXPECT_EQ(r.improvements, 0);
  // Why the interval rule: "median worse by >= 5%" catches a true 5% shift about half the time.
  EXPECT_LE(r.median_rule_regressions, r.trials * 0.7);
}

TEST(CompareDecisionPower, NoisyMachineNeedsMoreSteps) {
  // At CV 10%, 40 steps a side catch a 5% slowdown only ~34% of the time (20000-trial
  // run); ~150+ steps a side are needed for 95%. The threshold does not hide it: p decides.
  const Rates few =
      run({"5% slower lognormal cv10% n=40/40", 25, 40, 40, {Shape::lognormal, 0.10}, 0.95}, kPowerTrials);
  EXPECT_LE(few.regression_rate(), 0.6);
  const Rates many =
      run({"5% slower lognormal cv10% n=200/200", 26, 200, 200, {Shape::lognormal, 0.10}, 0.95}, kPowerTrials);
  EXPECT_GE(many.regression_rate(), 0.95);
}

TEST(CompareDecisionPower, FivePercentLongerStepsCv3Percent40PerSide) {
  const Rates r =
      run({"5% slower (step_ms +5%) normal cv3% n=40/40", 22, 40, 40, {Shape::normal, 0.03}, 1.05, "step_ms"},
          kPowerTrials);
  EXPECT_GE(r.regression_rate(), 0.95);
  EXPECT_EQ(r.improvements, 0);
}

TEST(CompareDecisionPower, FivePercentSlowdownWithStalls) {
  const Rates r = run(
      {"5% slower lognormal cv3% + 3% stalls n=50/50", 23, 50, 50, {Shape::lognormal, 0.03, 0.03}, 0.95}, kPowerTrials);
  EXPECT_GE(r.regression_rate(), 0.95);
}

TEST(CompareDecisionPower, FivePercentSpeedupIsAnImprovement) {
  const Rates r = run({"5% faster lognormal cv3% n=40/40", 24, 40, 40, {Shape::lognormal, 0.03}, 1.05}, kPowerTrials);
  EXPECT_GE(r.improvement_rate(), 0.95);
  EXPECT_EQ(r.regressions, 0);
}

// ---- The threshold: a real change shown to be below it is tolerated. ----

TEST(CompareDecisionThreshold, PreciselyMeasuredTwoPercentSlowdownIsNotARegression) {
  // Significant (p tiny) but the interval shows it is well below 5%.
  const Rates r = run({"2% slower lognormal cv1% n=60/60", 31, 60, 60, {Shape::lognormal, 0.01}, 0.98}, kPowerTrials);
  EXPECT_LE(r.regression_rate(), 0.01);
}

TEST(CompareDecisionThreshold, TwoPercentSlowdownIsARegressionWithThresholdOnePercent) {
  Scenario s{"2% slower lognormal cv1% n=60/60 threshold 1%", 32, 60, 60, {Shape::lognormal, 0.01}, 0.98};
  s.threshold = 0.01;
  EXPECT_GE(run(s, kPowerTrials).regression_rate(), 0.95);
}

TEST(CompareDecision, ReportsMediansNoiseAndInterval) {
  std::mt19937 rng(41);
  const CompareMetric& metric = find_compare_metric("samples_per_s");
  const auto base = draw(rng, 50, 1000, {Shape::lognormal, 0.03}, true);
  const auto next = draw(rng, 50, 900, {Shape::lognormal, 0.03}, true);
  const ConfigComparison c = compare_values("mlp/cpu/fp32", base, next, metric, CompareOptions{});
  EXPECT_EQ(c.verdict, Verdict::regression);
  EXPECT_EQ(c.basis, DecisionBasis::u_test);
  EXPECT_EQ(c.base.count, 50u);
  EXPECT_NEAR(c.base.cv(), 0.03, 0.01);
  ASSERT_TRUE(c.median_change && c.shift && c.p_value);
  EXPECT_NEAR(*c.median_change, -0.10, 0.02);
  EXPECT_NEAR(c.shift->estimate, -0.10, 0.02);
  EXPECT_LT(c.shift->low, c.shift->estimate);
  EXPECT_GT(c.shift->high, c.shift->estimate);
  EXPECT_LT(*c.p_value, 1e-6);
  EXPECT_NE(c.reason.find("p = "), std::string::npos);
}

// ---- Too few samples: threshold alone, labelled. ----

TEST(CompareDecisionFewSamples, DecidesOnTheMedianChangeAlone) {
  const CompareMetric& metric = find_compare_metric("step_ms");
  const ConfigComparison slower = compare_values("c", {10, 10.2, 9.9}, {11, 11.1, 10.9}, metric, CompareOptions{});
  EXPECT_EQ(slower.basis, DecisionBasis::threshold_only);
  EXPECT_EQ(slower.verdict, Verdict::regression);  // +10% median
  EXPECT_NE(slower.reason.find("too few samples"), std::string::npos);
  ASSERT_TRUE(slower.p_value);  // still reported

  const ConfigComparison same = compare_values("c", {10, 10.2, 9.9}, {10.2, 10.3, 10.1}, metric, CompareOptions{});
  EXPECT_EQ(same.basis, DecisionBasis::threshold_only);
  EXPECT_EQ(same.verdict, Verdict::no_change);  // +2% median
}

TEST(CompareDecisionFewSamples, FourPerSideCannotReachAlphaSoIsThresholdOnly) {
  CompareOptions options;
  options.min_samples = 2;  // the power check, not the count floor, decides here
  const CompareMetric& metric = find_compare_metric("step_ms");
  const ConfigComparison c = compare_values("c", {1, 1.1, 1.2, 1.3}, {2, 2.1, 2.2, 2.3}, metric, options);
  EXPECT_EQ(c.basis, DecisionBasis::threshold_only);  // min p = 2/70 > 0.01
  EXPECT_EQ(c.verdict, Verdict::regression);
}

// ---- Single-value metrics: ratio against the threshold, no test. ----

TEST(CompareDecisionSingleValue, MemoryRatioAgainstThreshold) {
  const CompareMetric& metric = find_compare_metric("host_peak_rss_bytes");
  const ConfigComparison more = compare_values("c", {1000e6}, {1100e6}, metric, CompareOptions{});
  EXPECT_EQ(more.basis, DecisionBasis::single_value);
  EXPECT_EQ(more.verdict, Verdict::regression);
  EXPECT_FALSE(more.p_value);
  EXPECT_NE(more.reason.find("no statistical test"), std::string::npos);
  EXPECT_EQ(compare_values("c", {1000e6}, {1030e6}, metric, CompareOptions{}).verdict, Verdict::no_change);
  EXPECT_EQ(compare_values("c", {1000e6}, {900e6}, metric, CompareOptions{}).verdict, Verdict::improvement);
  EXPECT_EQ(compare_values("c", {0}, {0}, metric, CompareOptions{}).verdict, Verdict::no_change);
}

}  // namespace
}  // namespace gpubench
