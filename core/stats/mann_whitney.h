#pragma once
#include <cstddef>
#include <vector>

namespace gpubench {

// Two-sided Mann-Whitney U test (Wilcoxon rank-sum) of two independent samples, computed
// the way scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method="auto") does
// (google/benchmark's compare.py relies on that function):
//  - statistic: U of the first sample, U_x = R_x - n_x (n_x + 1) / 2 (R_x its rank sum,
//    mid-ranks for ties);
//  - exact null distribution when there are no ties and the smaller sample has at most
//    8 values (and n_x * n_y <= 10000); p = 2 P(U >= max(U_x, U_y)), clipped to 1;
//  - otherwise the normal approximation with tie correction and continuity correction:
//    z = (max(U_x, U_y) - n_x n_y / 2 - 0.5) / sigma,
//    sigma^2 = n_x n_y / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1))), p = 2 (1 - Phi(z)).
// All values tied (sigma == 0) or an empty sample gives p = 1.
struct MannWhitneyResult {
  double u_x = 0;      // U statistic of x
  double u_y = 0;      // U statistic of y (u_x + u_y = n_x n_y)
  double p_value = 1;  // two-sided
  bool exact = false;  // exact distribution (true) or normal approximation (false)
  bool ties = false;   // the pooled sample had ties
};

// automatic: scipy's "auto" rule above; exact / asymptotic force one (exact falls back to
// asymptotic when there are ties or the samples exceed the exact limits).
enum class UTestMethod { automatic, exact, asymptotic };

MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y,
                                 UTestMethod method = UTestMethod::automatic);

// The smallest two-sided p-value the test can give for these sample sizes without ties:
// 2 / C(n_x + n_y, n_x). When it is >= alpha the test cannot reject at alpha whatever the
// data: the samples are too small for it to have any power.
double mann_whitney_min_p_value(std::size_t n_x, std::size_t n_y);

// Standard normal upper quantile: z with P(Z > z) = upper_tail (0 < upper_tail < 1).
double normal_upper_quantile(double upper_tail);

}  // namespace gpubench
