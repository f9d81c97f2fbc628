#pragma once
#include <string>
#include <vector>

namespace gpubench {

// Distribution-free 95% confidence interval of the median from order statistics (no
// normality assumption: step times are skewed). Valid from 6 samples; fewer give the
// sample's full range.
struct MedianInterval {
  double low = 0, high = 0, median = 0;
  double relative_half_width() const { return median > 0 ? (high - low) / (2 * median) : 0; }
};
MedianInterval median_confidence_interval(std::vector<double> values);

// When to stop measuring a config (nvbench's noise criterion): after at least
// `min_steps`, stop once the median's 95% CI is within ±`target_relative_ci`, or when the
// measured time reaches `budget_s`, or at `max_steps`. Before `min_steps`, a single step
// as long as the whole budget stops it too ("slow_step"). With `exact` the count is fixed.
struct StoppingRule {
  int min_steps = 3;
  int max_steps = 100;
  double budget_s = 60;
  double target_relative_ci = 0.02;  // <= 0: no noise criterion (budget and counts only)
  bool exact = false;
};

struct StopDecision {
  bool stop = false;
  std::string reason;  // "steps" (exact count), "ci_target", "time_budget", "max_steps", "slow_step"
};

StopDecision should_stop(const StoppingRule& rule, const std::vector<double>& step_ms, double measured_s);

}  // namespace gpubench
