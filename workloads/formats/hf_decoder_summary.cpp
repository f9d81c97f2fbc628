#include "workloads/formats/hf_decoder_config.h"

#include "core/config/errors.h"

namespace gpubench {

std::int64_t DecoderConfig::parameter_count() const {
  const DecoderShape& s = shape;
  std::optional<std::int64_t> count;
  if (family == DecoderFamily::Gpt2) {
    // The decoder's count of the same block (LayerNorms with biases, a plain MLP with biases)
    // and GPT-2's position table; its head is always tied.
    count = s.checked_parameters();
    std::int64_t positions = 0;
    if (count && (__builtin_mul_overflow(s.max_positions, s.hidden, &positions) ||
                  __builtin_add_overflow(*count, positions, &*count)))
      count.reset();
  } else {
    count = s.checked_parameters();
  }
  if (!count) throw UsageError("config.json '" + path + "': its parameter count overflows 64 bits: expected a model that fits");
  return *count;
}

void DecoderConfig::check_sequence_length(std::int64_t seq_len) const {
  const std::string what = "config.json '" + path + "': a sequence of " + std::to_string(seq_len) + " tokens ";
  if (seq_len < 1) throw UsageError(what + "is empty: expected at least 1");
  if (family == DecoderFamily::Gpt2 && seq_len > shape.max_positions)
    throw UsageError(what + "is longer than n_positions (" + std::to_string(shape.max_positions) +
                     "): expected at most that many (GPT-2 has one learned position embedding per position)");
}

nlohmann::json DecoderConfig::describe() const {
  nlohmann::json out = family == DecoderFamily::Gpt2 ? nlohmann::json::object() : shape.describe();
  out.update({
      {"config", path},
      {"family", family == DecoderFamily::Gpt2 ? "gpt2" : "decoder"},
      {"model_type", model_type},
      {"vocab_size", shape.vocab},
      {"hidden_size", shape.hidden},
      {"intermediate_size", shape.intermediate},
      {"num_hidden_layers", shape.layers},
      {"num_attention_heads", shape.heads},
      {"num_key_value_heads", shape.kv_heads},
      {"head_dim", shape.head_dim},
      {"max_position_embeddings", shape.max_positions},
      {"norm_eps", shape.norm_eps},
      {"tie_word_embeddings", shape.tie_word_embeddings},
      {"bias", {{"qkv", shape.qkv_bias}, {"o", shape.o_bias}, {"mlp", shape.mlp_bias}}},
      {"hidden_act", hidden_act},
      {"activation", activation_name(shape.activation)},
      {"parameter_count", parameter_count()},
  });
  if (!wrapper_model_type.empty()) out["text_decoder_of"] = wrapper_model_type;
  nlohmann::json not_applied(not_applied_notes());
  if (family == DecoderFamily::Gpt2) {
    out["position_embeddings"] = "learned (wpe)";
    out["dropout_ignored"] = {{"resid_pdrop", dropout_ignored.resid_pdrop},
                              {"embd_pdrop", dropout_ignored.embd_pdrop},
                              {"attn_pdrop", dropout_ignored.attn_pdrop}};
  }
  out["not_applied"] = not_applied;
  return out;
}

std::vector<std::string> DecoderConfig::not_applied_notes() const {
  std::vector<std::string> notes = not_applied;
  if (family != DecoderFamily::Gpt2) return notes;
  if (dropout_ignored.any())
    notes.push_back("dropout is not applied (a benchmark of the training step; HF's config asks for resid " +
                    nlohmann::json(dropout_ignored.resid_pdrop).dump() + ", embd " +
                    nlohmann::json(dropout_ignored.embd_pdrop).dump() + ", attn " +
                    nlohmann::json(dropout_ignored.attn_pdrop).dump() + ")");
  if (reorder_and_upcast_attn)
    notes.push_back("reorder_and_upcast_attn is not applied (it only upcasts attention's matmul under "
                    "reduced precision; in fp32 it changes nothing)");
  return notes;
}

}  // namespace gpubench
