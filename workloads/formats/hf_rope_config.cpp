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
    return it == dict_.end() || it->is_null() ? nullptr : &*it;
  }
  // The value as written, a null included.
  const json* raw(const std::string& name) const {
    const auto it = dict_.find(name);
    return it == dict_.end() ? nullptr : &*it;
  }
  UsageError refusal(const std::string& name, const std::string& expected) const {
    return fields_.refusal(key_ + "." + name, raw(name), expected);
  }
  // A finite number > min (>= min when `inclusive`); `absent` when the key is absent or null.
  std::optional<double> optional_number(const std::string& name, double min, bool inclusive) const {
    const json* value = find(name);
    if (value == nullptr) return std::nullopt;
    const auto number = fields_.as_number(*value);
    if (!number || *number < min || (!inclusive && *number == min))
      throw refusal(name, std::string("a number ") + (inclusive ? ">= " : "> ") + json(min).dump());
    return number;
  }
  double number(const std::string& name, double min, bool inclusive) const {
    if (const auto value = optional_number(name, min, inclusive)) return *value;
    throw refusal(name, std::string("a number ") + (inclusive ? ">= " : "> ") + json(min).dump());
  }
  std::vector<double> numbers(const std::string& name, std::size_t count) const {
    const std::string expected = "a list of " + std::to_string(count) + " numbers > 0 (one per rotated channel pair)";
    const json* value = find(name);
    if (value == nullptr || !value->is_array() || value->size() != count) throw refusal(name, expected);
    std::vector<double> out;
    for (const json& item : *value) {
      const auto number = fields_.as_number(item);
      if (!number || *number <= 0) throw refusal(name, expected);
      out.push_back(*number);
    }
    return out;
  }
  std::int64_t original_context(std::int64_t otherwise) const {
    const json* original = find("original_max_position_embeddings");
    const auto value = original ? fields_.as_integer(*original) : std::optional<std::int64_t>(otherwise);
    if (!value || *value < 1)
      throw refusal("original_max_position_embeddings", "an integer >= 1 (or absent: max_position_embeddings)");
    return *value;
  }

 private:
  const ConfigFields& fields_;
  const json& dict_;
  std::string key_;
};

double partial_rotary_factor(const ConfigFields& fields, const RopeReader& rope, const std::string& key, bool applies) {
  const std::string expected = applies ? "a number in (0, 1]"
                                       : "1 or absent (this family's RoPE rotates every channel; HF would ignore it)";
  const json* top = fields.find("partial_rotary_factor");
  const bool in_dict = rope.find("partial_rotary_factor") != nullptr;
  const json* value = in_dict ? rope.find("partial_rotary_factor") : top;
  if (value == nullptr) return 1.0;
  const auto number = fields.as_number(*value);
  const std::string field = in_dict ? key + ".partial_rotary_factor" : "partial_rotary_factor";
  if (!number || *number <= 0.0 || *number > 1.0 || (!applies && *number != 1.0)) throw fields.refusal(field, value, expected);
  return *number;
}

void read_type_parameters(const RopeReader& rope, const std::string& type_key, std::int64_t max_positions,
                          std::int64_t rotary_pairs, std::optional<std::int64_t> original_override, RopeShape& out) {
  const json* type = rope.raw(type_key);
  const std::string name = type == nullptr ? "default" : type->is_string() ? type->get<std::string>() : "";
  if (name == "default") return;
  if (name == "linear") {
    out.type = RopeShape::Type::Linear;
    out.factor = rope.number("factor", 1.0, true);
  } else if (name == "llama3") {
    out.type = RopeShape::Type::Llama3;
    out.factor = rope.number("factor", 1.0, true);
    out.low_freq_factor = rope.number("low_freq_factor", 0.0, false);
    out.high_freq_factor = rope.number("high_freq_factor", 0.0, false);
    if (out.high_freq_factor <= out.low_freq_factor)
      throw rope.refusal("high_freq_factor", "a number > low_freq_factor (" + json(out.low_freq_factor).dump() + ")");
    out.original_max_positions = rope.original_context(max_positions);
  } else if (name == "yarn") {
    out.type = RopeShape::Type::Yarn;
    out.factor = rope.number("factor", 1.0, true);
    out.original_max_positions = rope.original_context(max_positions);
    out.beta_fast = rope.optional_number("beta_fast", 0.0, false).value_or(32.0);
    out.beta_slow = rope.optional_number("beta_slow", 0.0, false).value_or(1.0);
    out.mscale = rope.optional_number("mscale", 0.0, true);
    out.mscale_all_dim = rope.optional_number("mscale_all_dim", 0.0, true);
    out.attention_factor = rope.optional_number("attention_factor", 0.0, false);
    if (const json* truncate = rope.find("truncate")) {
      if (!truncate->is_boolean()) throw rope.refusal("truncate", "true or false");
      out.truncate = truncate->get<bool>();
    }
  } else if (name == "longrope") {
    out.type = RopeShape::Type::LongRope;
    out.short_factor = rope.numbers("short_factor", static_cast<std::size_t>(rotary_pairs));
    out.long_factor = rope.numbers("long_factor", static_cast<std::size_t>(rotary_pairs));
    out.attention_factor = rope.optional_number("attention_factor", 0.0, false);
    out.original_max_positions = original_override ? *original_override : rope.original_context(max_positions);
    // Without a factor, the context's growth over the original (Phi-3's 128k over 4k).
    out.factor = rope.optional_number("factor", 0.0, false)
                     .value_or(static_cast<double>(max_positions) / static_cast<double>(out.original_max_positions));
  } else {
    throw rope.refusal(type_key, "\"default\", \"linear\", \"llama3\", \"yarn\" or \"longrope\" (dynamic and the other "
                                 "RoPE scalings are not implemented)");
  }
}

RopeShape read_one(const ConfigFields& fields, const json& dict, const std::string& key, std::int64_t max_positions,
                   const RopeReading& how, double theta_otherwise) {
  const RopeReader rope(fields, dict, key);
  RopeShape out;
  out.theta = theta_otherwise;
  if (rope.find("rope_theta") != nullptr) out.theta = rope.number("rope_theta", 0.0, false);
  out.partial_rotary_factor = partial_rotary_factor(fields, rope, key, how.partial_rotary);
  const std::int64_t rotary_dim = static_cast<std::int64_t>(static_cast<double>(how.head_dim) * out.partial_rotary_factor);
  const std::string type_key = rope.raw("rope_type") != nullptr ? "rope_type" : "type";
  read_type_parameters(rope, type_key, max_positions, rotary_dim / 2, how.original_override, out);
  return out;
}

// The top-level rope_theta (a null is refused: HF fails on it), else `otherwise`.
double top_level_theta(const ConfigFields& fields, double otherwise) {
  if (!fields.written("rope_theta")) return otherwise;
  const double theta = fields.number("rope_theta", -1.0, -std::numeric_limits<double>::infinity(),
                                     std::numeric_limits<double>::infinity());
  if (!(theta > 0.0)) throw fields.refusal("rope_theta", "a number > 0");
  return theta;
}

}  // namespace

RopeShape read_rope_config(const ConfigFields& fields, std::int64_t max_positions, const RopeReading& how) {
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
                           "a RoPE parameter (one RoPE for every layer: this family has no RoPE per layer type)");
  }
  return read_one(fields, *chosen, key, max_positions, how, top_level_theta(fields, how.default_theta));
}

std::map<std::string, RopeShape> read_rope_per_layer_type(const ConfigFields& fields, std::int64_t max_positions,
                                                          const RopeReading& how, double local_base_default) {
  const json* parameters = fields.find("rope_parameters");
  std::map<std::string, RopeShape> out;
  if (parameters != nullptr && parameters->is_object() && (parameters->contains("full_attention") || parameters->contains("sliding_attention"))) {
    for (const char* type : {"full_attention", "sliding_attention"}) {
      const auto it = parameters->find(type);
      if (it == parameters->end() || !it->is_object())
        throw fields.refusal(std::string("rope_parameters.") + type, it == parameters->end() ? nullptr : &*it,
                             "an object of RoPE parameters (one per layer type)");
      out[type] = read_one(fields, *it, std::string("rope_parameters.") + type, max_positions, how, how.default_theta);
    }
    return out;
  }
  // The 4.x spelling: rope_theta and rope_scaling for the full layers, rope_local_base_freq
  // (default RoPE) for the sliding ones.
  out["full_attention"] = read_rope_config(fields, max_positions, how);
  RopeShape local;
  local.theta = fields.number("rope_local_base_freq", local_base_default, 0.0, std::numeric_limits<double>::infinity());
  if (!(local.theta > 0.0)) throw fields.refusal("rope_local_base_freq", "a number > 0");
  local.partial_rotary_factor = out["full_attention"].partial_rotary_factor;
  out["sliding_attention"] = local;
  return out;
}

}  // namespace gpubench
