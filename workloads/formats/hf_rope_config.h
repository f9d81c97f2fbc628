#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "workloads/formats/hf_config_fields.h"

namespace gpubench {

// Rotary position embedding of the llama family, after transformers 5.17 has normalised
// the config's two spellings (4.x: top-level rope_theta + rope_scaling; 5.x:
// rope_parameters). Only the two types HF computes without a sequence-length dependence
// are accepted: "default" (inv_freq = 1/theta^(2i/d)) and "llama3" (its frequency bands).
struct RopeConfig {
  enum class Type { Default, Llama3 };
  Type type = Type::Default;
  double theta = 10000.0;
  // llama3 only (1.0 / 0 for default).
  double factor = 1.0;
  double low_freq_factor = 1.0;
  double high_freq_factor = 1.0;
  std::int64_t original_max_position_embeddings = 0;

  std::string type_name() const { return type == Type::Llama3 ? "llama3" : "default"; }
  nlohmann::json describe() const;
};

// Reads RoPE as PreTrainedConfig.convert_rope_params_to_dict + standardize_rope_params do:
// 1. the dict is rope_scaling if it is truthy (non-null, non-empty), else rope_parameters,
//    else {} (both written: rope_scaling wins and rope_parameters is dropped, as in HF);
// 2. theta: the dict's rope_theta, else the top-level rope_theta, else 10000;
// 3. type: the dict's rope_type, else its legacy "type", else "default";
// 4. llama3: factor, low_freq_factor and high_freq_factor required; the dict's
//    original_max_position_embeddings, else max_position_embeddings (a top-level
//    original_max_position_embeddings is ignored by Llama's config, so here too).
// Refused: any other type (linear, dynamic, yarn, longrope, ...), partial_rotary_factor
// != 1 (in the dict or top-level: Llama's default path would ignore it), a dict per layer
// type, and llama3 values HF's validator calls invalid (factor < 1, high <= low).
RopeConfig read_rope_config(const ConfigFields& fields, std::int64_t max_position_embeddings);

}  // namespace gpubench
