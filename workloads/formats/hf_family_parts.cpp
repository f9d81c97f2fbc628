#include "workloads/formats/hf_family_parts.h"

namespace gpubench {

std::string FamilyDefaults::would_assume(int which) const {
  return std::string("required: ") + config_class + " would silently assume " + values[which];
}

void read_dimensions(const ConfigFields& fields, const FamilyDefaults& defaults, const DimensionRules& rules,
                     DecoderConfig& config) {
  DecoderShape& s = config.shape;
  s.vocab = fields.dimension("vocab_size", defaults.would_assume(0));
  s.hidden = fields.dimension("hidden_size", defaults.would_assume(1));
  s.intermediate = fields.dimension(rules.intermediate_key, defaults.would_assume(2));
  s.layers = fields.dimension("num_hidden_layers", defaults.would_assume(3));
  s.heads = fields.dimension("num_attention_heads", defaults.would_assume(4));
  s.max_positions = fields.dimension("max_position_embeddings", defaults.would_assume(5));
  // Absent, some classes default to "as many as the query heads" (Llama-1 era files omit
  // it); others to a number whatever the heads: those must say. null: the heads, all.
  if (rules.kv_heads_default && !fields.written("num_key_value_heads"))
    throw fields.refusal("num_key_value_heads", std::string("an integer >= 1 (required: ") + defaults.config_class +
                                                    " would silently assume " + std::to_string(*rules.kv_heads_default) + ")");
  s.kv_heads = fields.optional_dimension("num_key_value_heads").value_or(s.heads);
  const auto head_dim = fields.optional_dimension("head_dim");
  if (!head_dim && rules.head_dim_default && !fields.written("head_dim"))
    throw fields.refusal("head_dim", std::string("an integer >= 1 (required: ") + defaults.config_class +
                                         " would silently assume " + std::to_string(*rules.head_dim_default) + ")");
  if ((!head_dim || rules.heads_divide_hidden_always) && s.hidden % s.heads != 0)
    throw fields.refusal("num_attention_heads", "a divisor of hidden_size (" + std::to_string(s.hidden) + ")");
  s.head_dim = head_dim.value_or(s.hidden / s.heads);
  if (s.head_dim % 2 != 0)  // RoPE rotates pairs of channels (HF's rotate_half splits head_dim in two)
    throw fields.refusal(head_dim ? "head_dim" : "num_attention_heads",
                         "a head width (head_dim " + std::to_string(s.head_dim) + ") that is even: RoPE rotates pairs");
  if (s.heads % s.kv_heads != 0)
    throw fields.refusal("num_key_value_heads", "a divisor of num_attention_heads (" + std::to_string(s.heads) + ")");
}

void read_activation(const ConfigFields& fields, const std::string& key, const std::string& absent, DecoderConfig& config) {
  config.hidden_act = fields.text(key, absent);
  const std::string& name = config.hidden_act;
  // transformers' ACT2FN names, by the function they compute. gelu_fast rounds sqrt(2/pi)
  // to the same fp32 number and factors the cubic differently: the tanh GELU to rounding.
  if (name == "silu" || name == "swish") {
    config.shape.activation = DecoderActivation::Silu;
    return;
  }
  for (const char* tanh : {"gelu_new", "gelu_pytorch_tanh", "gelu_python_tanh", "gelu_accurate", "gelu_fast"})
    if (name == tanh) {
      config.shape.activation = DecoderActivation::GeluTanh;
      return;
    }
  if (name == "gelu" || name == "gelu_python") {
    config.shape.activation = DecoderActivation::GeluErf;
    return;
  }
  throw fields.refusal(key, "silu (swish), the tanh GELU (gelu_new, gelu_pytorch_tanh, gelu_python_tanh, gelu_accurate, "
                            "gelu_fast) or the exact GELU (gelu, gelu_python): the functions gpubench computes");
}

void read_pad_token(const ConfigFields& fields, std::optional<std::int64_t> absent, DecoderConfig& config) {
  const std::int64_t vocab = config.shape.vocab;
  const auto pad = fields.written("pad_token_id") ? fields.optional_integer("pad_token_id") : absent;
  if (!pad) return;
  if (*pad < -vocab || *pad >= vocab)
    throw fields.refusal("pad_token_id", "null or a token id in [" + std::to_string(-vocab) + ", " + std::to_string(vocab) +
                                             ") (nn.Embedding's padding_idx)");
  config.shape.pad_token_id = *pad < 0 ? *pad + vocab : *pad;
}

void note_dropout(const ConfigFields& fields, const std::string& key, DecoderConfig& config) {
  const double p = fields.number(key, 0.0, 0.0, 1.0);
  if (p != 0.0)
    config.not_applied.push_back(key + " " + nlohmann::json(p).dump() +
                                 " is not applied (a benchmark of the training step runs without dropout)");
}

std::vector<bool> read_sliding_layers(const ConfigFields& fields, std::int64_t layers,
                                      const std::function<bool(std::int64_t)>& sliding) {
  std::vector<bool> out;
  const nlohmann::json* types = fields.find("layer_types");
  if (types == nullptr) {
    for (std::int64_t i = 0; i < layers; ++i) out.push_back(sliding(i));
    return out;
  }
  const std::string expected = std::to_string(layers) + " entries, each \"full_attention\" or \"sliding_attention\"";
  if (!types->is_array() || std::int64_t(types->size()) != layers) throw fields.refusal("layer_types", expected);
  for (const nlohmann::json& type : *types) {
    if (type != "full_attention" && type != "sliding_attention") throw fields.refusal("layer_types", expected);
    out.push_back(type == "sliding_attention");
  }
  return out;
}

void set_layer_attention(DecoderConfig& config, const std::vector<bool>& sliding, std::optional<std::int64_t> window,
                         const std::function<int(std::int64_t, bool)>& rope_of) {
  std::vector<LayerAttention> layers;
  bool all_plain = true;
  for (std::size_t i = 0; i < sliding.size(); ++i) {
    LayerAttention layer;
    if (sliding[i]) layer.window = window;
    layer.rope = rope_of(static_cast<std::int64_t>(i), sliding[i]);
    all_plain = all_plain && !layer.window && layer.rope == 0;
    layers.push_back(layer);
  }
  if (!all_plain) config.shape.layer_attention = std::move(layers);
}

std::optional<std::int64_t> read_window(const ConfigFields& fields, std::optional<std::int64_t> absent) {
  if (!fields.written("sliding_window")) return absent;
  return fields.optional_dimension("sliding_window");
}

}  // namespace gpubench
