#include "core/stats/log_t_test.h"

#include <cmath>
#include <cstddef>
#include <stdexcept>

#include "core/stats/student_t.h"
#include "core/stats/summary.h"

namespace gpubench {
namespace {

std::vector<double> logs(const std::vector<double>& values) {
  std::vector<double> out;
  out.reserve(values.size());
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v)) throw std::invalid_argument("log_t_test: values must be finite and > 0");
    out.push_back(std::log(v));
  }
  return out;
}

// The test from a mean log difference, its standard error and df.
LogTTest from_difference(double difference, double standard_error, double df, double confidence) {
  LogTTest test;
  test.df = df;
  if (standard_error == 0) {  // every run identical on each side: no noise to test against
    test.p_value = difference == 0 ? 1 : 0;
    test.shift = {std::expm1(difference), std::expm1(difference), std::expm1(difference)};
    return test;
  }
  const double t = difference / standard_error;
  test.p_value = 2 * student_t_cdf(-std::fabs(t), df);
  const double half_width = student_t_quantile(1 - (1 - confidence) / 2, df) * standard_error;
  test.shift = {std::expm1(difference), std::expm1(difference - half_width), std::expm1(difference + half_width)};
  return test;
}

}  // namespace

LogTTest log_t_test(const std::vector<double>& base, const std::vector<double>& next, double confidence, bool paired) {
  if (!(confidence > 0 && confidence < 1)) throw std::invalid_argument("log_t_test: confidence must be in (0, 1)");
  if (base.size() < 2 || next.size() < 2) throw std::invalid_argument("log_t_test: need at least 2 values a side");
  const std::vector<double> x = logs(base), y = logs(next);
  if (paired) {
    if (x.size() != y.size()) throw std::invalid_argument("log_t_test: paired samples must have equal sizes");
    std::vector<double> differences(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) differences[i] = y[i] - x[i];
    const Summary d = summarize(differences);  // stddev: the sample (n - 1) one
    const double n = static_cast<double>(differences.size());
    return from_difference(d.mean, d.stddev / std::sqrt(n), n - 1, confidence);
  }
  const Summary a = summarize(x), b = summarize(y);
  // Squared standard errors of each side's mean.
  const double va = a.stddev * a.stddev / static_cast<double>(x.size());
  const double vb = b.stddev * b.stddev / static_cast<double>(y.size());
  // Welch-Satterthwaite degrees of freedom.
  const double denominator = va * va / static_cast<double>(x.size() - 1) + vb * vb / static_cast<double>(y.size() - 1);
  const double df = denominator > 0 ? (va + vb) * (va + vb) / denominator : static_cast<double>(x.size() + y.size() - 2);
  return from_difference(b.mean - a.mean, std::sqrt(va + vb), df, confidence);
}

}  // namespace gpubench
