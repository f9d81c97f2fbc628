#include "workloads/formats/hf_config_fields.h"

#include <cmath>
#include <limits>

#include "workloads/formats/strict_json.h"

namespace gpubench {
namespace {

std::string range_text(double min, double max) {
  const std::string low = nlohmann::json(min).dump();
  return std::isinf(max) ? "a number >= " + low : "a number in [" + low + ", " + nlohmann::json(max).dump() + "]";
}

}  // namespace

const nlohmann::json* ConfigFields::find(const std::string& key) const {
  const auto it = root_.find(key);
  return it == root_.end() || it->is_null() ? nullptr : &*it;
}

UsageError ConfigFields::refusal(const std::string& field, const nlohmann::json* value, const std::string& expected) const {
  return UsageError("config.json '" + path_ + "': " + prefix_ + field + " is " + (value ? json_excerpt(*value) : "missing") +
                    ": expected " + expected);
}

UsageError ConfigFields::refusal(const std::string& key, const std::string& expected) const {
  const auto it = root_.find(key);  // a null is shown as null, not as missing
  return refusal(key, it == root_.end() ? nullptr : &*it, expected);
}

std::optional<double> ConfigFields::as_number(const nlohmann::json& value) const {
  if (!value.is_number()) return std::nullopt;  // a JSON boolean is not a number here
  const double number = value.get<double>();
  return std::isfinite(number) ? std::optional<double>(number) : std::nullopt;
}

std::optional<std::int64_t> ConfigFields::as_integer(const nlohmann::json& value) const {
  if (value.is_number_integer() && !value.is_number_unsigned()) return value.get<std::int64_t>();
  if (value.is_number_unsigned() && value.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<std::int64_t>::max()))
    return static_cast<std::int64_t>(value.get<std::uint64_t>());
  return std::nullopt;
}

std::int64_t ConfigFields::dimension(const std::string& key, const std::string& why_required) const {
  const auto value = optional_dimension(key);
  if (!value) throw refusal(key, "an integer >= 1 (" + why_required + ")");
  return *value;
}

std::optional<std::int64_t> ConfigFields::optional_dimension(const std::string& key) const {
  const nlohmann::json* value = find(key);
  if (value == nullptr) return std::nullopt;
  const auto integer = as_integer(*value);
  if (!integer || *integer < 1 || *integer > kMaxDimension) throw refusal(key, "an integer in [1, 2^40]");
  return integer;
}

std::optional<std::int64_t> ConfigFields::optional_integer(const std::string& key) const {
  const nlohmann::json* value = find(key);
  if (value == nullptr) return std::nullopt;
  const auto integer = as_integer(*value);
  if (!integer) throw refusal(key, "an integer or null");
  return integer;
}

double ConfigFields::number(const std::string& key, double absent, double min, double max) const {
  const nlohmann::json* value = find(key);
  if (value == nullptr) return absent;
  const auto number = as_number(*value);
  if (!number || *number < min || *number > max)
    throw refusal(key, range_text(min, max));
  return *number;
}

bool ConfigFields::flag(const std::string& key, bool absent) const {
  const nlohmann::json* value = find(key);
  if (value == nullptr) return absent;
  if (!value->is_boolean()) throw refusal(key, "true or false");
  return value->get<bool>();
}

std::string ConfigFields::text(const std::string& key, const std::string& absent) const {
  const nlohmann::json* value = find(key);
  if (value == nullptr) return absent;
  if (!value->is_string()) throw refusal(key, "a string");
  return value->get<std::string>();
}

}  // namespace gpubench
