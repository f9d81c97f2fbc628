#include "core/stats/relative_shift.h"

#include <cmath>

#include "core/stats/shift_estimate.h"

namespace gpubench {
namespace {

std::vector<double> log_of_each(const std::vector<double>& values) {
  std::vector<double> out;
  out.reserve(values.size());
  for (double v : values) out.push_back(std::log(v));
  return out;
}

}  // namespace

RelativeShift relative_shift(const std::vector<double>& base, const std::vector<double>& next, double confidence) {
  const ShiftEstimate log_shift = hodges_lehmann_shift(log_of_each(base), log_of_each(next), confidence);
  return {std::expm1(log_shift.estimate), std::expm1(log_shift.low), std::expm1(log_shift.high)};
}

}  // namespace gpubench
