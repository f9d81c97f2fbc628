#include "core/stats/stopping_rule.h"

#include <algorithm>
#include <cmath>

#include "core/stats/summary.h"

namespace gpubench {

MedianInterval median_confidence_interval(std::vector<double> values) {
  MedianInterval interval;
  if (values.empty()) return interval;
  std::sort(values.begin(), values.end());
  const auto n = static_cast<double>(values.size());
  interval.median = percentile(values, 0.5);
  // Ranks n/2 ± 1.96·sqrt(n)/2 (binomial(n, 1/2) normal approximation), 1-based.
  const double spread = 0.98 * std::sqrt(n);
  const auto low_rank = static_cast<long>(std::floor(n / 2 - spread));
  const auto high_rank = static_cast<long>(std::ceil(n / 2 + 1 + spread));
  const auto last = static_cast<long>(values.size());
  interval.low = values[static_cast<std::size_t>(std::clamp(low_rank, 1L, last) - 1)];
  interval.high = values[static_cast<std::size_t>(std::clamp(high_rank, 1L, last) - 1)];
  return interval;
}

StopDecision should_stop(const StoppingRule& rule, const std::vector<double>& step_ms, double measured_s) {
  const int steps = static_cast<int>(step_ms.size());
  if (rule.exact) return {steps >= rule.max_steps, "steps"};
  if (steps >= rule.max_steps) return {true, "max_steps"};
  if (steps < rule.min_steps) {
    // One step longer than the whole budget (CPU bf16 without native bf16 units: a
    // transformer step takes tens of seconds): min_steps of them would overrun the budget
    // min_steps-fold. The budget wins, and the reason says min_steps was not reached.
    const bool one_step_over_budget = !step_ms.empty() && *std::max_element(step_ms.begin(), step_ms.end()) >= rule.budget_s * 1000;
    return one_step_over_budget ? StopDecision{true, "slow_step"} : StopDecision{false, ""};
  }
  if (measured_s >= rule.budget_s) return {true, "time_budget"};
  // The interval needs a handful of samples before it means anything.
  constexpr int kMinStepsForInterval = 10;
  if (rule.target_relative_ci > 0 && steps >= kMinStepsForInterval &&
      median_confidence_interval(step_ms).relative_half_width() <= rule.target_relative_ci)
    return {true, "ci_target"};
  return {false, ""};
}

}  // namespace gpubench
