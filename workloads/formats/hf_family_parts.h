#pragma once
// What the decoder families' readers (hf_family_readers.cpp) read alike: the shape keys, the
// activation, the padding row, dropouts, and which layers are sliding-window layers.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "workloads/formats/hf_family_readers.h"
#include "workloads/formats/hf_rope_config.h"

namespace gpubench {

// How a family resolves num_key_value_heads and head_dim when absent.
struct DimensionRules {
  // The config class's num_key_value_heads when the key is absent; nullopt: as many as the
  // query heads (Llama's, Phi-3's, OLMo 2's None), which needs no saying.
  std::optional<std::int64_t> kv_heads_default;
  // The config class's head_dim when absent (Qwen3's 128, Gemma's 256); nullopt:
  // hidden_size / num_attention_heads.
  std::optional<std::int64_t> head_dim_default;
  // LlamaConfig refuses hidden % heads != 0 even when head_dim is given.
  bool heads_divide_hidden_always = false;
  const char* intermediate_key = "intermediate_size";
};

// vocab, hidden, intermediate, layers, heads, kv heads, head_dim and the context into
// config.shape; refuses shapes that do not divide.
void read_dimensions(const ConfigFields& fields, const FamilyDefaults& defaults, const DimensionRules& rules,
                     DecoderConfig& config);

// `key` (hidden_act, hidden_activation) as one of transformers' ACT2FN names gpubench
// computes; refused otherwise.
void read_activation(const ConfigFields& fields, const std::string& key, const std::string& absent, DecoderConfig& config);

// pad_token_id as nn.Embedding's padding_idx (a negative id counts from the end).
void read_pad_token(const ConfigFields& fields, std::optional<std::int64_t> absent, DecoderConfig& config);

// A dropout probability, read and not applied (as GPT-2's): a benchmark of the training step
// runs without dropout, and published configs ask for it (Granite 3's attention_dropout
// 0.1). Anything but 0 is recorded in the row's not_applied.
void note_dropout(const ConfigFields& fields, const std::string& key, DecoderConfig& config);

// The layers' kinds: layer_types as written (each "full_attention" or "sliding_attention"),
// else `sliding(i)` of the config class's default; each sliding layer gets `window`.
// Sliding layers with no window (a null sliding_window) are refused.
std::vector<bool> read_sliding_layers(const ConfigFields& fields, std::int64_t layers,
                                      const std::function<bool(std::int64_t)>& sliding);
// config.shape.layer_attention from the sliding layers, their window and each layer's
// RoPE (`rope_of(i, sliding)`, -1: none).
void set_layer_attention(DecoderConfig& config, const std::vector<bool>& sliding, std::optional<std::int64_t> window,
                         const std::function<int(std::int64_t, bool)>& rope_of);

// `window` on every layer, one RoPE (Mistral, Phi-3, StarCoder2, Mixtral, Qwen3-MoE); none
// when nullopt.
void window_every_layer(DecoderConfig& config, std::optional<std::int64_t> window);

// The sliding window as written: a positive integer, or nullopt when null; `absent` when
// the key is not written.
std::optional<std::int64_t> read_window(const ConfigFields& fields, std::optional<std::int64_t> absent);

// The one RoPE of every layer (RoPE per layer type: Gemma 3's reader), how.head_dim set here.
void read_single_rope(const ConfigFields& fields, DecoderConfig& config, RopeReading how = {});

// Biases as Llama reads them: attention_bias on q, k, v and o; mlp_bias on the MLP.
void read_llama_biases(const ConfigFields& fields, DecoderConfig& config);

// `window` where `sliding` names layers; refused when it names some and there is none (a
// null sliding_window makes HF's mask builder fail).
std::optional<std::int64_t> window_for(const ConfigFields& fields, const std::vector<bool>& sliding,
                                       std::optional<std::int64_t> window);

// Qwen2's and Qwen3's windows: with use_sliding_window, layers i >= max_window_layers (or
// those layer_types marks).
void read_qwen_windows(const ConfigFields& fields, DecoderConfig& config);

// What every Llama-like family reads alike: the shape keys, hidden_act, rms_norm_eps,
// tie_word_embeddings (default false), attention_dropout (noted).
void read_llama_like(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config,
                     const DimensionRules& rules);

// A count a config class's attribute_map lets two keys spell (GPT-2's n_embd and
// hidden_size, Qwen3-MoE's num_experts and num_local_experts): either key, refused when both
// are written and disagree (HF would keep one), `why` when neither is.
std::int64_t aliased_dimension(const ConfigFields& fields, const std::string& key, const std::string& alias,
                               const std::string& why);

// The mixture-of-experts families (hf_moe_readers.cpp).
const std::vector<DecoderFamilyEntry>& moe_families();

}  // namespace gpubench
