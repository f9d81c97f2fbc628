#pragma once
#include <vector>

namespace gpubench {

// How much larger `next` is than `base`, as a ratio minus 1: the Hodges-Lehmann estimate
// of the shift of log(values) (so independent of units and robust to outliers), with its
// distribution-free confidence interval at `confidence`, all as exp(shift) - 1. Values
// must be > 0. `gpubench compare` judges slowdowns with it; `--overhead` the probes' cost.
struct RelativeShift {
  double estimate = 0;
  double low = 0;
  double high = 0;
};

RelativeShift relative_shift(const std::vector<double>& base, const std::vector<double>& next, double confidence);

}  // namespace gpubench
