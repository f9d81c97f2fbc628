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

void window_every_layer(DecoderConfig& config, std::optional<std::int64_t> window) {
  set_layer_attention(config, std::vector<bool>(static_cast<std::size_t>(config.shape.layers), true), window,
                      [](std::int64_t, bool) { return 0; });
}

std::optional<std::int64_t> read_window(const ConfigFields& fields, std::optional<std::int64_t> absent) {
  if (!fields.written("sliding_window")) return absent;
  return fields.optional_dimension("sliding_window");
}

// The one RoPE of every layer (RoPE per layer type: Gemma 3's reader).
void read_single_rope(const ConfigFields& fields, DecoderConfig& config, RopeReading how) {
  how.head_dim = config.shape.head_dim;
  config.shape.ropes = {read_rope_config(fields, config.shape.max_positions, how)};
}

// Biases as Llama reads them: attention_bias on q, k, v and o; mlp_bias on the MLP.
void read_llama_biases(const ConfigFields& fields, DecoderConfig& config) {
  config.shape.qkv_bias = config.shape.o_bias = fields.flag("attention_bias", false);
  config.shape.mlp_bias = fields.flag("mlp_bias", false);
}

// Sliding layers need a window: a layer_types naming them with a null sliding_window makes
// HF's mask builder fail.
std::optional<std::int64_t> window_for(const ConfigFields& fields, const std::vector<bool>& sliding,
                                       std::optional<std::int64_t> window) {
  for (const bool layer : sliding)
    if (layer && !window)
      throw fields.refusal("sliding_window", "an integer >= 1 (layer_types names sliding-window layers)");
  return window;
}

// Qwen2's and Qwen3's windows: with use_sliding_window, layers i >= max_window_layers (or
// those layer_types marks).
void read_qwen_windows(const ConfigFields& fields, DecoderConfig& config) {
  const bool use = fields.flag("use_sliding_window", false);
  const auto window = use ? read_window(fields, 4096) : std::nullopt;
  const auto max_window_layers = fields.optional_integer("max_window_layers").value_or(28);
  const auto sliding = read_sliding_layers(fields, config.shape.layers, [&](std::int64_t i) { return window && i >= max_window_layers; });
  set_layer_attention(config, sliding, window_for(fields, sliding, window), [](std::int64_t, bool) { return 0; });
}

void read_llama_like(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config,
                     const DimensionRules& rules) {
  read_dimensions(fields, defaults, rules, config);
  read_activation(fields, "hidden_act", "silu", config);
  config.shape.norm_eps = fields.number("rms_norm_eps", 1e-6, 0.0, kInfinity);
  config.shape.tie_word_embeddings = fields.flag("tie_word_embeddings", false);
  note_dropout(fields, "attention_dropout", config);
}

std::int64_t aliased_dimension(const ConfigFields& fields, const std::string& key, const std::string& alias,
                            const std::string& why) {
  const auto value = fields.optional_dimension(key);
  const auto aliased = fields.optional_dimension(alias);
  if (value && aliased && *value != *aliased)
    throw fields.refusal(alias, "the value of " + key + " (" + std::to_string(*value) + "), for which it is an alias");
  if (value) return *value;
  if (aliased) return *aliased;
  throw fields.refusal(key, "an integer >= 1 (" + why + ")");
}

}  // namespace gpubench
