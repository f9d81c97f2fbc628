#pragma once
#include <vector>

#include "core/stats/relative_shift.h"

namespace gpubench {

// How much larger `next` is than `base` when each value is one whole run's figure (a run's
// median step time, its peak memory): Student's t-test on log(values), so the change is a
// ratio (exp(mean log difference) - 1) with its confidence interval at `confidence`.
//  - unpaired (Welch): runs of each side are independent; unequal variances allowed.
//  - paired: base[i] and next[i] ran back to back (interleaved in one job), so slow drift
//    of the machine cancels within each pair; sizes must be equal.
// Why a t-test and not the U test here: with a handful of runs a side the U test cannot
// reach a small alpha at all (3 vs 3: p >= 0.1), while the log of a run's median is close
// to normal (a median of many steps). Values must be > 0; at least 2 a side (2 pairs).
// Throws std::invalid_argument otherwise (callers check the counts first).
struct LogTTest {
  RelativeShift shift;  // NEW vs BASE as a ratio minus 1, with its interval
  double p_value = 1;   // two-sided
  double df = 0;        // degrees of freedom (Welch's may be fractional)
};

LogTTest log_t_test(const std::vector<double>& base, const std::vector<double>& next, double confidence, bool paired);

}  // namespace gpubench
