#include "core/stats/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace gpubench {
namespace {

// Upper tail of the standard normal distribution, P(Z > z).
double normal_upper_tail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// Number of arrangements giving each value u = 0..m*n of the U statistic of the
// m-sample against the n-sample (no ties). Recurrence on the largest pooled value: it is
// in the m-sample (beats all n values) or in the n-sample (beats none):
//   f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u).
// Counts are doubles: they exceed 2^53 for large samples, only their ratios matter.
std::vector<double> u_distribution(std::size_t m, std::size_t n) {
  std::vector<std::vector<double>> column(m + 1, std::vector<double>(1, 1.0));  // n = 0
  for (std::size_t k = 1; k <= n; ++k) {
    std::vector<std::vector<double>> next(m + 1);
    next[0] = {1.0};
    for (std::size_t i = 1; i <= m; ++i) {
      next[i].assign(i * k + 1, 0.0);
      for (std::size_t u = 0; u <= i * k; ++u) {
        double count = 0;
        if (u >= k) count += next[i - 1][u - k];
        if (u < column[i].size()) count += column[i][u];
        next[i][u] = count;
      }
    }
    column = std::move(next);
  }
  return column[m];
}

}  // namespace

double normal_upper_quantile(double upper_tail) {
  // Bisection on the monotone tail: 200 halvings reach double precision.
  double low = -40, high = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (low + high);
    if (normal_upper_tail(mid) > upper_tail) {
      low = mid;
    } else {
      high = mid;
    }
  }
  return 0.5 * (low + high);
}

double mann_whitney_min_p_value(std::size_t n_x, std::size_t n_y) {
  if (n_x == 0 || n_y == 0) return 1;
  // log C(n_x + n_y, n_x) through lgamma keeps large sizes finite.
  const double log_choose = std::lgamma(static_cast<double>(n_x + n_y) + 1) -
                            std::lgamma(static_cast<double>(n_x) + 1) - std::lgamma(static_cast<double>(n_y) + 1);
  return std::min(1.0, 2.0 * std::exp(-log_choose));
}

MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y, UTestMethod method) {
  MannWhitneyResult result;
  const std::size_t n_x = x.size(), n_y = y.size();
  if (n_x == 0 || n_y == 0) return result;
  const std::size_t n = n_x + n_y;

  // Pool, sort, assign mid-ranks (1-based) to tie groups.
  std::vector<std::pair<double, bool>> pooled;  // value, from x
  pooled.reserve(n);
  for (double v : x) pooled.emplace_back(v, true);
  for (double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum_x = 0, tie_term = 0;
  for (std::size_t start = 0; start < n;) {
    std::size_t end = start + 1;
    while (end < n && pooled[end].first == pooled[start].first) ++end;
    const double tied = static_cast<double>(end - start);
    const double mid_rank = 0.5 * static_cast<double>(start + 1 + end);  // mean of start+1..end
    for (std::size_t i = start; i < end; ++i)
      if (pooled[i].second) rank_sum_x += mid_rank;
    tie_term += tied * tied * tied - tied;
    start = end;
  }
  const double nx = static_cast<double>(n_x), ny = static_cast<double>(n_y), nn = static_cast<double>(n);
  result.u_x = rank_sum_x - nx * (nx + 1) / 2;
  result.u_y = nx * ny - result.u_x;
  result.ties = tie_term > 0;
  const double u_max = std::max(result.u_x, result.u_y);

  const std::size_t smaller = std::min(n_x, n_y), larger = std::max(n_x, n_y);
  const bool exact_possible = !result.ties && smaller * larger <= 10000 && smaller <= 64;
  const bool exact = method == UTestMethod::exact       ? exact_possible
                     : method == UTestMethod::automatic ? exact_possible && smaller <= 8
                                                        : false;
  if (exact) {
    const std::vector<double> counts = u_distribution(smaller, larger);
    const auto first = static_cast<std::size_t>(std::llround(u_max));
    const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
    const double upper = std::accumulate(counts.begin() + static_cast<std::ptrdiff_t>(first), counts.end(), 0.0);
    result.exact = true;
    result.p_value = std::min(1.0, 2.0 * upper / total);
    return result;
  }

  const double variance = nx * ny / 12.0 * ((nn + 1) - tie_term / (nn * (nn - 1)));
  if (!(variance > 0)) return result;  // every value tied: no evidence of a difference
  const double z = (u_max - nx * ny / 2 - 0.5) / std::sqrt(variance);
  result.p_value = std::clamp(2.0 * normal_upper_tail(z), 0.0, 1.0);
  return result;
}

}  // namespace gpubench
