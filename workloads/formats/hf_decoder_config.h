#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "workloads/formats/hf_rope_config.h"

namespace gpubench {

// The decoder families gpubench builds from a Hugging Face config.json. Llama covers
// model_type llama, mistral and qwen2: one implementation, their differences (biases,
// window) resolved into the fields below.
enum class DecoderFamily { Gpt2, Llama };

// The MLP's activation, as a function: HF spells each several ways (hidden_act).
enum class DecoderActivation {
  Silu,      // silu, swish
  GeluTanh,  // 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))): gelu_new, gelu_pytorch_tanh, ...
  GeluErf,   // exact: gelu, gelu_python
};

// GPT-2's dropout probabilities, read and not applied: a benchmark of the training step
// runs without dropout, and every published GPT-2 config asks for 0.1 (refusing would
// refuse them all). The report row says so.
struct Gpt2Dropout {
  double resid_pdrop = 0.0;
  double embd_pdrop = 0.0;
  double attn_pdrop = 0.0;
  bool any() const { return resid_pdrop != 0.0 || embd_pdrop != 0.0 || attn_pdrop != 0.0; }
};

// A decoder LM's shape as HF builds it from config.json: plain data, every value resolved
// (no "None means ..." left for the model code), checked so that the model gpubench builds
// is HF's model of the same file, or the file is refused.
struct DecoderConfig {
  std::string path;        // the config.json read
  DecoderFamily family = DecoderFamily::Llama;
  std::string model_type;  // "gpt2", "llama", "mistral" or "qwen2"

  std::int64_t vocab_size = 0;
  std::int64_t hidden_size = 0;          // gpt2: n_embd
  std::int64_t intermediate_size = 0;    // gpt2: n_inner, or 4 * n_embd when null
  std::int64_t num_hidden_layers = 0;    // gpt2: n_layer
  std::int64_t num_attention_heads = 0;  // gpt2: n_head
  std::int64_t num_key_value_heads = 0;  // gpt2: = heads; query head h uses kv head h / (heads / kv)
  std::int64_t head_dim = 0;             // q/k/v are [heads * head_dim, hidden]; may differ from hidden / heads
  std::int64_t max_position_embeddings = 0;  // gpt2: n_positions, the rows of wpe
  double norm_eps = 0.0;                 // rms_norm_eps (RMSNorm) or layer_norm_epsilon (LayerNorm)
  bool tie_word_embeddings = false;      // the LM head is the input embedding

  // Biases as the family resolves them: Llama from attention_bias (q, k, v and o) and
  // mlp_bias; Qwen2 q/k/v always, o and MLP never; Mistral none; GPT-2 all (Conv1D).
  bool qkv_bias = false;
  bool o_bias = false;
  bool mlp_bias = false;

  std::string hidden_act;  // as config.json spells it (gpt2: activation_function)
  DecoderActivation activation = DecoderActivation::Silu;

  RopeConfig rope;  // llama family; GPT-2 has learned positions (wpe)
  // Llama family: HF's embed_tokens is nn.Embedding(padding_idx=pad_token_id), so this row
  // gets no gradient (and is zero at HF's init). In [0, vocab_size): a negative id counts
  // from the end, as nn.Embedding reads it. Always empty for gpt2 (its wte has none).
  std::optional<std::int64_t> pad_token_id;
  // Mistral's attention window over every layer (the key absent means HF's 4096). Accepted,
  // because attention over W keys is plain causal attention whenever the sequence has at
  // most W tokens; check_sequence_length() refuses a longer run (see there).
  std::optional<std::int64_t> sliding_window;

  // GPT-2 only: what config.json asks for and gpubench does not do.
  Gpt2Dropout dropout_ignored;
  bool reorder_and_upcast_attn = false;  // accepted: changes precision only, none in fp32

  // Trainable parameters as HF counts them (sum of numel over model.parameters()): a tied
  // head counted once, gpt2's wpe included, biases as resolved above. UsageError when it
  // overflows 64 bits (parse_decoder_config refuses such a file).
  std::int64_t parameter_count() const;
  // Refuses a run of seq_len tokens the model cannot compute as HF does: over GPT-2's
  // n_positions (no wpe row), or over Mistral's sliding window (a windowed mask would then
  // differ from the causal attention gpubench runs).
  void check_sequence_length(std::int64_t seq_len) const;
  // For the report row: family, shape, biases, activation, RoPE, what is ignored and why.
  nlohmann::json describe() const;
};

// Reads and checks config.json at `path` (a file). UsageError "config.json 'PATH': FIELD
// is VALUE: expected WHAT" for anything that would make a different model than HF's:
// an unknown model_type or architectures, a missing shape key (class defaults differ per
// family, so none is assumed), unsupported RoPE, an active window gpubench cannot match,
// dropout in attention, a quantized model, and shapes that do not divide.
DecoderConfig read_decoder_config(const std::string& path);
// The same on parsed JSON; `path` names it in messages.
DecoderConfig parse_decoder_config(const nlohmann::json& config, const std::string& path);

}  // namespace gpubench
