#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "workloads/formats/decoder_shape.h"
#include "workloads/formats/hf_config_fields.h"

namespace gpubench {

// Reads RoPE as PreTrainedConfig.convert_rope_params_to_dict + standardize_rope_params do:
// 1. the dict is rope_scaling if it is truthy (non-null, non-empty), else rope_parameters,
//    else {} (both written: rope_scaling wins and rope_parameters is dropped, as in HF);
// 2. theta: the dict's rope_theta, else the top-level rope_theta, else `default_theta`;
// 3. type: the dict's rope_type, else its legacy "type", else "default";
// 4. per type, what modeling_rope_utils reads (workloads/decoder_rope.cpp computes them):
//    linear: factor; llama3: factor, low_freq_factor, high_freq_factor and the dict's
//    original_max_position_embeddings (else max_position_embeddings; a top-level one is
//    ignored); yarn: factor, beta_fast/beta_slow (32/1), mscale, mscale_all_dim,
//    attention_factor, truncate, original_max_position_embeddings; longrope: short_factor
//    and long_factor (one per rotated pair), attention_factor, and the context ratio from
//    the top-level original_max_position_embeddings;
// 5. partial_rotary_factor from the dict, else the top level, else 1 — where the family
//    applies it (`partial_rotary`); elsewhere anything but 1 is refused (the family's
//    default RoPE would ignore it, so a file with it means what HF does not do).
// Refused: other types (dynamic, ...), a dict per layer type, values HF's validator calls
// invalid (factor < 1, high <= low, factor lists of the wrong length).
struct RopeReading {
  double default_theta = 10000.0;
  bool partial_rotary = false;
  std::int64_t head_dim = 0;  // for the length of LongRoPE's lists
  // LongRoPE's original context when the family reads it elsewhere (Phi-3: its top-level
  // original_max_position_embeddings, default 4096, wins over the dict's).
  std::optional<std::int64_t> original_override;
};
RopeShape read_rope_config(const ConfigFields& fields, std::int64_t max_position_embeddings, const RopeReading& how);

// Gemma 3's RoPE per layer type: rope_parameters {"full_attention": {...},
// "sliding_attention": {...}} (5.x), each dict read as above; the 4.x spelling's rope_theta,
// rope_scaling (full layers) and rope_local_base_freq (sliding layers, default RoPE) too.
std::map<std::string, RopeShape> read_rope_per_layer_type(const ConfigFields& fields, std::int64_t max_position_embeddings,
                                                          const RopeReading& how, double local_base_default);

}  // namespace gpubench
