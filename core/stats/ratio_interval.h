#pragma once
// The 95% interval of a ratio of two medians (a speedup) from each median's own interval,
// given as its relative half-width (the row's stopping.median_ci95_relative): the ratio
// of the interval ends, a conservative bound that needs no per-step samples. Ablations
// and `tune` quote it so a reader sees whether a difference is larger than the noise.
#include <algorithm>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

namespace gpubench {

inline std::pair<double, double> ratio_interval(double ratio, double base_relative_half_width,
                                                double candidate_relative_half_width) {
  const double b = std::clamp(base_relative_half_width, 0.0, 0.99);
  const double c = std::clamp(candidate_relative_half_width, 0.0, 0.99);
  return {ratio * (1 - c) / (1 + b), ratio * (1 + c) / (1 - b)};
}

// Below this many measured steps a row's median interval is a point or two samples (a
// step that outlasts the budget stops the row after one): its spread is unknown, not zero.
inline constexpr int kMinStepsForSpread = 3;

// A result row's median interval as a relative half-width; nullopt when its spread is unknown.
inline std::optional<double> row_relative_half_width(const nlohmann::json& row) {
  const auto steps = row.value("steps", nlohmann::json::object());
  const auto relative = row.value("stopping", nlohmann::json::object()).value("median_ci95_relative", nlohmann::json());
  if (steps.value("measured", 0) < kMinStepsForSpread || !relative.is_number()) return std::nullopt;  // null: unknown
  return relative.get<double>();
}

// ratio_interval of two result rows; nullopt when either row's spread is unknown: a
// [1.66-1.66] from two one-step rows would claim a certainty nobody measured.
inline std::optional<std::pair<double, double>> row_ratio_interval(double ratio, const nlohmann::json& base,
                                                                   const nlohmann::json& candidate) {
  const auto b = row_relative_half_width(base), c = row_relative_half_width(candidate);
  if (!b || !c) return std::nullopt;
  return ratio_interval(ratio, *b, *c);
}

}  // namespace gpubench
