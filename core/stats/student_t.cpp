#include "core/stats/student_t.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace gpubench {
namespace {

constexpr double kNormalDf = 1e5;

// The continued fraction of I_x(a, b) (modified Lentz), which converges fast for
// x < (a + 1) / (a + b + 2); the caller uses the symmetry I_x(a, b) = 1 - I_{1-x}(b, a)
// otherwise.
double beta_continued_fraction(double x, double a, double b) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double fraction = d;
  for (int m = 1; m <= 500; ++m) {
    // Even step: m (b - m) x / ((a + 2m - 1)(a + 2m)).
    double term = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 + term * d;
    c = 1 + term / c;
    if (std::fabs(d) < kTiny) d = kTiny;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    fraction *= d * c;
    // Odd step: -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)).
    term = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + term * d;
    c = 1 + term / c;
    if (std::fabs(d) < kTiny) d = kTiny;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    fraction *= delta;
    if (std::fabs(delta - 1) < kEpsilon) break;
  }
  return fraction;
}

}  // namespace

double regularized_incomplete_beta(double x, double a, double b) {
  if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
    throw std::invalid_argument("regularized_incomplete_beta: need a, b > 0 and 0 <= x <= 1");
  if (x == 0 || x == 1) return x;
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  if (x < (a + 1) / (a + b + 2)) return std::exp(log_front) * beta_continued_fraction(x, a, b) / a;
  return 1 - std::exp(log_front) * beta_continued_fraction(1 - x, b, a) / b;
}

double student_t_cdf(double t, double df) {
  if (!(df > 0)) throw std::invalid_argument("student_t_cdf: df must be > 0");
  if (std::isnan(t)) return t;
  if (std::isinf(t)) return t > 0 ? 1 : 0;
  // Beyond this the continued fraction needs more terms than it is given, and the t is
  // the normal to ~1e-5 anyway (compare's df are at most twice the runs).
  if (df > kNormalDf) return 0.5 * std::erfc(-t / std::sqrt(2.0));
  // P(|T| > |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2).
  const double two_tailed = regularized_incomplete_beta(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - two_tailed / 2 : two_tailed / 2;
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("student_t_quantile: p must be in (0, 1)");
  if (!(df > 0)) throw std::invalid_argument("student_t_quantile: df must be > 0");
  if (p == 0.5) return 0;
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  // The cdf is monotone: bracket, then bisect to double precision.
  double low = 0, high = 1;
  while (student_t_cdf(high, df) < p) {
    low = high;
    high *= 2;
    if (high > 1e300) return std::numeric_limits<double>::infinity();
  }
  for (int i = 0; i < 200 && high - low > 1e-12 * high; ++i) {
    const double mid = (low + high) / 2;
    (student_t_cdf(mid, df) < p ? low : high) = mid;
  }
  return (low + high) / 2;
}

}  // namespace gpubench
