#include "core/stats/relative_shift.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

TEST(RelativeShift, AConstantFactorIsRecoveredExactly) {
  const std::vector<double> base = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
  std::vector<double> next;
  for (double v : base) next.push_back(v * 1.05);
  const RelativeShift shift = relative_shift(base, next, 0.95);
  EXPECT_NEAR(shift.estimate, 0.05, 1e-12);
  EXPECT_LT(shift.low, 0.05);
  EXPECT_GT(shift.high, 0.05);
}

TEST(RelativeShift, ItIsUnitFreeAndSymmetric) {
  const std::vector<double> a = {1.0, 1.2, 0.9, 1.1, 1.05, 0.95, 1.15};
  const std::vector<double> b = {2.1, 2.5, 1.9, 2.2, 2.3, 2.0, 2.4};
  std::vector<double> a_ms, b_ms;
  for (double v : a) a_ms.push_back(v * 1000);
  for (double v : b) b_ms.push_back(v * 1000);
  const RelativeShift seconds = relative_shift(a, b, 0.95);
  const RelativeShift millis = relative_shift(a_ms, b_ms, 0.95);
  EXPECT_NEAR(seconds.estimate, millis.estimate, 1e-12);
  EXPECT_NEAR(seconds.low, millis.low, 1e-12);
  const RelativeShift back = relative_shift(b, a, 0.95);
  EXPECT_NEAR((1 + back.estimate) * (1 + seconds.estimate), 1.0, 1e-12) << "the reverse ratio is the inverse";
}

}  // namespace
}  // namespace gpubench
