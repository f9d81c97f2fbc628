#include "core/stats/summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gpubench {
namespace {

double sorted_percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const auto upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

}  // namespace

double percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return sorted_percentile(values, q);
}

Summary summarize(const std::vector<double>& values) {
  Summary summary;
  summary.count = values.size();
  if (values.empty()) return summary;
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  summary.median = sorted_percentile(sorted, 0.5);
  summary.p10 = sorted_percentile(sorted, 0.1);
  summary.p90 = sorted_percentile(sorted, 0.9);
  summary.min = sorted.front();
  summary.max = sorted.back();
  summary.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
  double squares = 0;
  for (double v : sorted) squares += (v - summary.mean) * (v - summary.mean);
  summary.stddev = sorted.size() > 1 ? std::sqrt(squares / static_cast<double>(sorted.size() - 1)) : 0;
  return summary;
}

}  // namespace gpubench
