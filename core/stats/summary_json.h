#pragma once
#include <nlohmann/json.hpp>

#include "core/stats/summary.h"

namespace gpubench {

// The report's form of a Summary: {median, p10, p90, mean, stddev, min, max, count, cv}.
inline nlohmann::json to_json(const Summary& s) {
  return {{"median", s.median}, {"p10", s.p10}, {"p90", s.p90}, {"mean", s.mean}, {"stddev", s.stddev},
          {"min", s.min},       {"max", s.max}, {"count", s.count}, {"cv", s.cv()}};
}

}  // namespace gpubench
