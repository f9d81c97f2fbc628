#pragma once
// The 95% interval of a ratio of two medians (a speedup) from each median's own interval,
// given as its relative half-width (the row's stopping.median_ci95_relative): the ratio
// of the interval ends, a conservative bound that needs no per-step samples. Ablations
// and `tune` quote it so a reader sees whether a difference is larger than the noise.
#include <algorithm>
#include <utility>

namespace gpubench {

inline std::pair<double, double> ratio_interval(double ratio, double base_relative_half_width,
                                                double candidate_relative_half_width) {
  const double b = std::clamp(base_relative_half_width, 0.0, 0.99);
  const double c = std::clamp(candidate_relative_half_width, 0.0, 0.99);
  return {ratio * (1 - c) / (1 + b), ratio * (1 + c) / (1 - b)};
}

}  // namespace gpubench
