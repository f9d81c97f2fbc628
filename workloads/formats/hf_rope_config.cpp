#include "workloads/formats/hf_rope_config.h"

#include <limits>
#include <optional>

#include "workloads/formats/strict_json.h"

namespace gpubench {
namespace {

using nlohmann::json;

// Python truthiness of the dict HF picks: None and {} are false.
bool truthy(const json* value) { return value != nullptr && !(value->is_object() && value->empty()); }

class RopeReader {
 public:
  RopeReader(const ConfigFields& fields, const json& dict, std::string key)
      : fields_(fields), dict_(dict), key_(std::move(key)) {}

  const json* find(const std::string& name) const {
    const auto it = dict_.find(name);
    return it == dict_.end() ? nullptr : &*it;
  }
  UsageError refusal(const std::string& name, const std::string& expected) const {
    return fields_.refusal(key_ + "." + name, find(name), expected);
  }
  // A required finite number > min (>= min when `inclusive`).
  double number(const std::string& name, double min, bool inclusive) const {
    const std::string expected = std::string("a number ") + (inclusive ? ">= " : "> ") + json(min).dump();
    const json* value = find(name);
    if (value == nullptr) throw refusal(name, expected);
    const auto number = fields_.as_number(*value);
    if (!number || *number < min || (!inclusive && *number == min)) throw refusal(name, expected);
    return *number;
  }

 private:
  const ConfigFields& fields_;
  const json& dict_;
  std::string key_;
};

void refuse_partial_rotary(const ConfigFields& fields, const json& dict, const std::string& key) {
  const std::string expected = "1 or absent (partial rotary embeddings are not implemented; Llama would ignore it)";
  const auto check = [&](const std::string& field, const json* value) {
    if (value == nullptr || value->is_null()) return;
    const auto number = fields.as_number(*value);
    if (!number || *number != 1.0) throw fields.refusal(field, value, expected);
  };
  const auto it = dict.find("partial_rotary_factor");
  check(key + ".partial_rotary_factor", it == dict.end() ? nullptr : &*it);
  check("partial_rotary_factor", fields.find("partial_rotary_factor"));
}

}  // namespace

RopeConfig read_rope_config(const ConfigFields& fields, std::int64_t max_position_embeddings) {
  const json* scaling = fields.find("rope_scaling");
  const json* parameters = fields.find("rope_parameters");
  const std::string key = truthy(scaling) ? "rope_scaling" : "rope_parameters";
  const json* chosen = truthy(scaling) ? scaling : parameters;
  static const json empty = json::object();
  if (chosen == nullptr) chosen = &empty;
  if (!chosen->is_object()) throw fields.refusal(key, chosen, "an object of RoPE parameters or null");
  for (const auto& [name, value] : chosen->items()) {
    if (value.is_object() || name == "full_attention" || name == "sliding_attention")
      throw fields.refusal(key + "." + name, &value,
                           "a RoPE parameter (one RoPE for every layer: per-layer-type RoPE is not implemented)");
  }
  refuse_partial_rotary(fields, *chosen, key);
  const RopeReader rope(fields, *chosen, key);

  RopeConfig config;
  // A theta in the dict wins; the top-level key counts even when null (kwargs.pop), which
  // HF then fails on, so a null is refused here.
  if (rope.find("rope_theta") != nullptr) {
    config.theta = rope.number("rope_theta", 0.0, false);
  } else if (fields.written("rope_theta")) {
    config.theta = fields.number("rope_theta", -1.0, 0.0, std::numeric_limits<double>::infinity());
    if (!(config.theta > 0.0)) throw fields.refusal("rope_theta", "a number > 0");
  }
  const std::string type_key = rope.find("rope_type") != nullptr ? "rope_type" : "type";
  const json* type = rope.find(type_key);
  const std::string type_name = type == nullptr ? "default" : type->is_string() ? type->get<std::string>() : "";
  if (type_name == "default") return config;
  if (type_name != "llama3")
    throw rope.refusal(type_key, "\"default\" or \"llama3\" (linear, dynamic, yarn, longrope and the other RoPE "
                                 "scalings are not implemented)");
  config.type = RopeConfig::Type::Llama3;
  config.factor = rope.number("factor", 1.0, true);
  config.low_freq_factor = rope.number("low_freq_factor", 0.0, false);
  config.high_freq_factor = rope.number("high_freq_factor", 0.0, false);
  if (config.high_freq_factor <= config.low_freq_factor)
    throw rope.refusal("high_freq_factor", "a number > low_freq_factor (" + json(config.low_freq_factor).dump() + ")");
  const json* original = rope.find("original_max_position_embeddings");
  const auto original_value = original ? fields.as_integer(*original) : std::optional<std::int64_t>(max_position_embeddings);
  if (!original_value || *original_value < 1)
    throw rope.refusal("original_max_position_embeddings", "an integer >= 1 (or absent: max_position_embeddings)");
  config.original_max_position_embeddings = *original_value;
  return config;
}

nlohmann::json RopeConfig::describe() const {
  json out = {{"type", type_name()}, {"theta", theta}};
  if (type == Type::Llama3) {
    out["factor"] = factor;
    out["low_freq_factor"] = low_freq_factor;
    out["high_freq_factor"] = high_freq_factor;
    out["original_max_position_embeddings"] = original_max_position_embeddings;
  }
  return out;
}

}  // namespace gpubench
