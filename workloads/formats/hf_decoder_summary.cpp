#include "workloads/formats/hf_decoder_config.h"

#include "core/config/errors.h"

namespace gpubench {
namespace {

// Sums of products that remember whether any step overflowed.
class CheckedCount {
 public:
  CheckedCount& add(std::int64_t a, std::int64_t b = 1, std::int64_t c = 1) {
    std::int64_t term = 0;
    overflow_ = overflow_ || __builtin_mul_overflow(a, b, &term) || __builtin_mul_overflow(term, c, &term) ||
                __builtin_add_overflow(total_, term, &total_);
    return *this;
  }
  CheckedCount& times(std::int64_t n) {
    overflow_ = overflow_ || __builtin_mul_overflow(total_, n, &total_);
    return *this;
  }
  void mark_overflow() { overflow_ = true; }
  std::int64_t total() const { return total_; }
  bool overflow() const { return overflow_; }

 private:
  std::int64_t total_ = 0;
  bool overflow_ = false;
};

const char* activation_name(DecoderActivation activation) {
  switch (activation) {
    case DecoderActivation::Silu: return "silu";
    case DecoderActivation::GeluTanh: return "gelu_tanh";
    case DecoderActivation::GeluErf: return "gelu_erf";
  }
  return "unknown";
}

}  // namespace

std::int64_t DecoderConfig::parameter_count() const {
  const std::int64_t c = hidden_size, f = intermediate_size, v = vocab_size;
  CheckedCount layer;
  CheckedCount total;
  if (family == DecoderFamily::Gpt2) {
    // ln_1, ln_2 (weight + bias); c_attn [C, 3C] + 3C; c_proj [C, C] + C; c_fc [C, F] + F; mlp.c_proj [F, C] + C.
    layer.add(4, c).add(3, c, c).add(3, c).add(c, c).add(c).add(c, f).add(f).add(f, c).add(c);
    total.add(v, c).add(max_position_embeddings, c);  // wte, wpe
    total.add(2, c);                                    // ln_f
  } else {
    std::int64_t q = 0, kv = 0;  // widths of the query and key/value projections
    if (__builtin_mul_overflow(num_attention_heads, head_dim, &q) ||
        __builtin_mul_overflow(num_key_value_heads, head_dim, &kv))
      layer.mark_overflow();
    layer.add(2, c);                   // input_layernorm, post_attention_layernorm (RMSNorm: weight only)
    layer.add(c, q).add(2, c, kv);     // q_proj, k_proj, v_proj
    layer.add(q, c);                   // o_proj
    layer.add(3, c, f);                // gate_proj, up_proj, down_proj
    if (qkv_bias) layer.add(q).add(2, kv);
    if (o_bias) layer.add(c);
    if (mlp_bias) layer.add(2, f).add(c);
    total.add(v, c);  // embed_tokens
    total.add(c);     // model.norm
  }
  layer.times(num_hidden_layers);
  total.add(layer.total());
  if (!tie_word_embeddings) total.add(v, c);  // lm_head (no bias in any of the four)
  if (layer.overflow() || total.overflow())
    throw UsageError("config.json '" + path + "': its parameter count overflows 64 bits: expected a model that fits");
  return total.total();
}

void DecoderConfig::check_sequence_length(std::int64_t seq_len) const {
  const std::string what = "config.json '" + path + "': a sequence of " + std::to_string(seq_len) + " tokens ";
  if (seq_len < 1) throw UsageError(what + "is empty: expected at least 1");
  if (family == DecoderFamily::Gpt2 && seq_len > max_position_embeddings)
    throw UsageError(what + "is longer than n_positions (" + std::to_string(max_position_embeddings) +
                     "): expected at most that many (GPT-2 has one learned position embedding per position)");
  // Attention over a window of W keys (q - W < k <= q) is plain causal attention while
  // T <= W, and gpubench runs plain causal attention: a longer sequence would differ.
  if (sliding_window && seq_len > *sliding_window)
    throw UsageError(what + "is longer than sliding_window (" + std::to_string(*sliding_window) +
                     "): expected at most that many (windowed attention is not implemented; up to the window it "
                     "equals causal attention)");
}

nlohmann::json DecoderConfig::describe() const {
  nlohmann::json out = {
      {"config", path},
      {"family", family == DecoderFamily::Gpt2 ? "gpt2" : "llama"},
      {"model_type", model_type},
      {"vocab_size", vocab_size},
      {"hidden_size", hidden_size},
      {"intermediate_size", intermediate_size},
      {"num_hidden_layers", num_hidden_layers},
      {"num_attention_heads", num_attention_heads},
      {"num_key_value_heads", num_key_value_heads},
      {"head_dim", head_dim},
      {"max_position_embeddings", max_position_embeddings},
      {"norm_eps", norm_eps},
      {"tie_word_embeddings", tie_word_embeddings},
      {"bias", {{"qkv", qkv_bias}, {"o", o_bias}, {"mlp", mlp_bias}}},
      {"hidden_act", hidden_act},
      {"activation", activation_name(activation)},
      {"parameter_count", parameter_count()},
  };
  nlohmann::json not_applied = nlohmann::json::array();
  if (family == DecoderFamily::Gpt2) {
    out["position_embeddings"] = "learned (wpe)";
    out["dropout_ignored"] = {{"resid_pdrop", dropout_ignored.resid_pdrop},
                              {"embd_pdrop", dropout_ignored.embd_pdrop},
                              {"attn_pdrop", dropout_ignored.attn_pdrop}};
    if (dropout_ignored.any())
      not_applied.push_back("dropout is not applied (a benchmark of the training step; HF's config asks for resid " +
                            nlohmann::json(dropout_ignored.resid_pdrop).dump() + ", embd " +
                            nlohmann::json(dropout_ignored.embd_pdrop).dump() + ", attn " +
                            nlohmann::json(dropout_ignored.attn_pdrop).dump() + ")");
    if (reorder_and_upcast_attn)
      not_applied.push_back("reorder_and_upcast_attn is not applied (it only upcasts attention's matmul under "
                            "reduced precision; in fp32 it changes nothing)");
  } else {
    out["rope"] = rope.describe();
    out["pad_token_id"] = pad_token_id ? nlohmann::json(*pad_token_id) : nlohmann::json(nullptr);
    out["sliding_window"] = sliding_window ? nlohmann::json(*sliding_window) : nlohmann::json(nullptr);
  }
  out["not_applied"] = not_applied;
  return out;
}

}  // namespace gpubench
