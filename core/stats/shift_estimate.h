#pragma once
#include <vector>

namespace gpubench {

// Hodges-Lehmann estimate of the location shift y - x: the median of all n_x * n_y
// pairwise differences y_j - x_i. `low`/`high` bound the distribution-free confidence
// interval that inverts the Mann-Whitney test (Moses' interval): the (k+1)-th smallest and
// (k+1)-th largest differences, k = floor(n_x n_y / 2 - z * sigma_U), z the two-sided
// normal quantile of `confidence` and sigma_U the tie-corrected standard deviation of U.
// Too few samples for that confidence give the whole range of differences.
// Runs in O((n_x + n_y) log) time and O(n_x + n_y) memory: order statistics of the
// differences are found by bisection on their value, never by listing all pairs.
// Empty samples give all zeros.
struct ShiftEstimate {
  double estimate = 0;
  double low = 0;
  double high = 0;
};

ShiftEstimate hodges_lehmann_shift(const std::vector<double>& x, const std::vector<double>& y, double confidence);

}  // namespace gpubench
