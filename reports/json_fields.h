#pragma once
// Reading an untrusted report for a page or an export: a field of the wrong type is left out
// (the page shows "-"), never thrown from deep inside a printer. Only what compare relies on is
// validated on load (report_loader.h); the rest of a report is shown as far as it is sane.
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace gpubench::json_fields {

// The member `key` of `object`, or null when `object` is not an object or lacks it.
inline const nlohmann::json* member(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto found = object.find(key);
  return found == object.end() ? nullptr : &*found;
}

inline std::optional<double> number(const nlohmann::json& object, const char* key) {
  const nlohmann::json* value = member(object, key);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  const double x = value->get<double>();
  return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
}

inline std::string text(const nlohmann::json& object, const char* key, const std::string& fallback = "") {
  const nlohmann::json* value = member(object, key);
  return value != nullptr && value->is_string() ? value->get<std::string>() : fallback;
}

inline const nlohmann::json& object_or_empty(const nlohmann::json& object, const char* key) {
  static const nlohmann::json empty = nlohmann::json::object();
  const nlohmann::json* value = member(object, key);
  return value != nullptr && value->is_object() ? *value : empty;
}

inline const nlohmann::json& array_or_empty(const nlohmann::json& object, const char* key) {
  static const nlohmann::json empty = nlohmann::json::array();
  const nlohmann::json* value = member(object, key);
  return value != nullptr && value->is_array() ? *value : empty;
}

// A number or JSON null, rounded to `digits` significant digits: pages carry thousands
// of points, and nlohmann writes a rounded double in few characters.
inline nlohmann::json rounded(std::optional<double> value, int digits = 5) {
  if (!value || !std::isfinite(*value)) return nullptr;
  if (*value == 0) return 0.0;
  const double scale = std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(*value)))));
  return std::round(*value * scale) / scale;
}

// {median, p10, p90, count} of a report summary, or null.
inline nlohmann::json summary_points(const nlohmann::json& summary) {
  const auto median = number(summary, "median");
  if (!median) return nullptr;
  return {{"median", rounded(median)},
          {"p10", rounded(number(summary, "p10"))},
          {"p90", rounded(number(summary, "p90"))},
          {"count", rounded(number(summary, "count"), 12)}};
}

}  // namespace gpubench::json_fields
