#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/config/errors.h"

namespace gpubench {

// No upper bound, for ConfigFields::number.
inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Typed reads of a Hugging Face config.json's top-level keys, each refusal worded the same
// way: UsageError "config.json 'PATH': FIELD is VALUE: expected WHAT" (VALUE "missing" when
// the key is absent). A key set to null reads as absent, as HF's from_dict sees None.
// Integers must be JSON integers (HF's strict dataclasses refuse 2048.0 and true), numbers
// finite, booleans JSON booleans.
class ConfigFields {
 public:
  // `prefix` names where `root` sits in the file ("text_config." for a multimodal config's
  // text decoder), so that refusals name the field as the file has it.
  ConfigFields(const nlohmann::json& root, std::string path, std::string prefix = "")
      : root_(root), path_(std::move(path)), prefix_(std::move(prefix)) {}

  const std::string& path() const { return path_; }
  // The value at `key`, or nullptr when the key is absent or null.
  const nlohmann::json* find(const std::string& key) const;
  // Whether the key is written at all, null included (HF tells a null from an absent key
  // for a few fields, e.g. Mistral's sliding_window).
  bool written(const std::string& key) const { return root_.contains(key); }

  // The refusal for `field` (a key, or a dotted path into one such as "rope_scaling.factor")
  // holding `value` (nullptr: missing).
  UsageError refusal(const std::string& field, const nlohmann::json* value, const std::string& expected) const;
  UsageError refusal(const std::string& key, const std::string& expected) const;

  // Dimensions and counts are at most 2^40, far above any model's, so that products of two
  // (4 * n_embd, hidden * heads) cannot overflow; parameter counts are checked apart.
  static constexpr std::int64_t kMaxDimension = std::int64_t{1} << 40;

  // A required integer in [1, kMaxDimension] (a dimension or a count). `why_required`
  // says what the missing key would silently become.
  std::int64_t dimension(const std::string& key, const std::string& why_required) const;
  // An integer in [1, kMaxDimension] when written, nothing when absent or null.
  std::optional<std::int64_t> optional_dimension(const std::string& key) const;
  // Any integer when written (e.g. pad_token_id, which may be negative).
  std::optional<std::int64_t> optional_integer(const std::string& key) const;
  // A finite number in [min, max], `absent` when absent or null.
  double number(const std::string& key, double absent, double min, double max) const;
  bool flag(const std::string& key, bool absent) const;
  std::string text(const std::string& key, const std::string& absent) const;

  // Shared checks for a value nested anywhere (RoPE dicts): the same wording.
  std::optional<double> as_number(const nlohmann::json& value) const;
  std::optional<std::int64_t> as_integer(const nlohmann::json& value) const;

 private:
  const nlohmann::json& root_;
  std::string path_;
  std::string prefix_;
};

}  // namespace gpubench
