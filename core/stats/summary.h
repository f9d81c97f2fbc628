#pragma once
#include <cstddef>
#include <vector>

namespace gpubench {

// Robust description of a sample: medians and percentiles, never a single run.
struct Summary {
  std::size_t count = 0;
  double median = 0, p10 = 0, p90 = 0, mean = 0, stddev = 0, min = 0, max = 0;
  double cv() const { return mean != 0 ? stddev / mean : 0; }  // coefficient of variation
};

// Linear-interpolated percentile (q in [0,1]) of an unsorted sample; 0 for an empty one.
double percentile(std::vector<double> values, double q);

Summary summarize(const std::vector<double>& values);

}  // namespace gpubench
