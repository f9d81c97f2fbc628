#include "core/stats/shift_estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/stats/mann_whitney.h"

namespace gpubench {
namespace {

// Both samples sorted ascending; differences are y_j - x_i.
class PairwiseDifferences {
 public:
  PairwiseDifferences(std::vector<double> x, std::vector<double> y) : x_(std::move(x)), y_(std::move(y)) {
    std::sort(x_.begin(), x_.end());
    std::sort(y_.begin(), y_.end());
  }

  std::uint64_t count() const { return static_cast<std::uint64_t>(x_.size()) * y_.size(); }

  // k-th smallest difference, k in 1..count().
  double kth_smallest(std::uint64_t k) const {
    double low = y_.front() - x_.back();   // the smallest difference
    double high = y_.back() - x_.front();  // the largest
    if (count_at_most(low) >= k) return low;
    // Invariant: count_at_most(low) < k <= count_at_most(high).
    for (int i = 0; i < 2000; ++i) {
      const double mid = low + (high - low) / 2;
      if (!(mid > low && mid < high)) break;
      if (count_at_most(mid) >= k) {
        high = mid;
      } else {
        low = mid;
      }
    }
    return high;
  }

 private:
  // Number of pairs with y_j - x_i <= t, i.e. x_i >= y_j - t: one merge-like pass.
  std::uint64_t count_at_most(double t) const {
    std::uint64_t total = 0;
    std::size_t first_at_least = 0;  // first i with x_i >= y_j - t; moves right as j grows
    for (double yj : y_) {
      const double bound = yj - t;
      while (first_at_least < x_.size() && x_[first_at_least] < bound) ++first_at_least;
      total += x_.size() - first_at_least;
    }
    return total;
  }

  std::vector<double> x_, y_;
};

double tie_term(std::vector<double> pooled) {
  std::sort(pooled.begin(), pooled.end());
  double term = 0;
  for (std::size_t start = 0; start < pooled.size();) {
    std::size_t end = start + 1;
    while (end < pooled.size() && pooled[end] == pooled[start]) ++end;
    const double t = static_cast<double>(end - start);
    term += t * t * t - t;
    start = end;
  }
  return term;
}

}  // namespace

ShiftEstimate hodges_lehmann_shift(const std::vector<double>& x, const std::vector<double>& y, double confidence) {
  ShiftEstimate shift;
  if (x.empty() || y.empty()) return shift;
  std::vector<double> pooled = x;
  pooled.insert(pooled.end(), y.begin(), y.end());
  const double nx = static_cast<double>(x.size()), ny = static_cast<double>(y.size());
  const double n = nx + ny;
  const double ties = tie_term(std::move(pooled));

  const PairwiseDifferences differences(x, y);
  const std::uint64_t total = differences.count();
  if (total % 2 == 1) {
    shift.estimate = differences.kth_smallest(total / 2 + 1);
  } else {
    shift.estimate = 0.5 * (differences.kth_smallest(total / 2) + differences.kth_smallest(total / 2 + 1));
  }

  const double z = normal_upper_quantile((1 - confidence) / 2);
  const double variance = n > 1 ? nx * ny / 12.0 * ((n + 1) - ties / (n * (n - 1))) : 0;
  const double excluded = std::floor(static_cast<double>(total) / 2 - z * std::sqrt(std::max(variance, 0.0)));
  // k differences are cut from each end; k < 0 (too few samples) keeps the whole range.
  const std::uint64_t k = excluded > 0 ? std::min(static_cast<std::uint64_t>(excluded), (total - 1) / 2) : 0;
  shift.low = differences.kth_smallest(k + 1);
  shift.high = differences.kth_smallest(total - k);
  return shift;
}

}  // namespace gpubench
