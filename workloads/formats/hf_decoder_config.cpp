#include "workloads/formats/hf_decoder_config.h"

#include <limits>
#include <string_view>

#include "core/config/errors.h"
#include "core/io/mapped_file.h"
#include "workloads/formats/hf_config_fields.h"
#include "workloads/formats/strict_json.h"

namespace gpubench {
namespace {

using nlohmann::json;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// A config.json is a few kB; this is only a bound on what gets parsed.
constexpr std::size_t kMaxConfigBytes = 16u << 20;

// What each accepted model_type is, and the HF class that a config of it builds. The
// class defaults are named in refusals of missing keys: they differ per family, which is
// why none is assumed.
struct FamilyName {
  const char* model_type;
  const char* architecture;  // the causal-LM class AutoModelForCausalLM builds
  DecoderFamily family;
  const char* config_class;
  const char* defaults[6];  // vocab_size, hidden_size, intermediate_size, layers, heads, max_position_embeddings
};
const FamilyName kFamilies[] = {
    {"gpt2", "GPT2LMHeadModel", DecoderFamily::Gpt2, "GPT2Config", {"50257", "768", "3072", "12", "12", "1024"}},
    {"llama", "LlamaForCausalLM", DecoderFamily::Llama, "LlamaConfig", {"32000", "4096", "11008", "32", "32", "2048"}},
    {"mistral", "MistralForCausalLM", DecoderFamily::Llama, "MistralConfig",
     {"32000", "4096", "14336", "32", "32", "131072"}},
    {"qwen2", "Qwen2ForCausalLM", DecoderFamily::Llama, "Qwen2Config", {"151936", "4096", "22016", "32", "32", "32768"}},
};

const FamilyName& family_of(const ConfigFields& fields) {
  const std::string expected = "one of \"gpt2\", \"llama\", \"mistral\", \"qwen2\" (other model types are other models)";
  const json* type = fields.find("model_type");
  if (type == nullptr || !type->is_string()) throw fields.refusal("model_type", expected);
  for (const FamilyName& family : kFamilies) {
    if (*type != family.model_type) continue;
    const json* architectures = fields.find("architectures");
    if (architectures != nullptr &&
        !(architectures->is_array() && architectures->size() == 1 && (*architectures)[0] == family.architecture))
      throw fields.refusal("architectures", std::string("[\"") + family.architecture + "\"] for model_type \"" +
                                                family.model_type + "\" (its causal LM; other heads are other models)");
    return family;
  }
  throw fields.refusal("model_type", expected);
}

std::string would_assume(const FamilyName& family, int which) {
  return std::string("required: ") + family.config_class + " would silently assume " + family.defaults[which];
}

// GPT2Config.attribute_map lets hidden_size stand for n_embd, and so on. With both keys
// written HF keeps one of them; a disagreement is refused rather than resolved.
std::int64_t gpt2_dimension(const ConfigFields& fields, const std::string& key, const std::string& alias,
                            const std::string& why) {
  const auto value = fields.optional_dimension(key);
  const auto aliased = fields.optional_dimension(alias);
  if (value && aliased && *value != *aliased)
    throw fields.refusal(alias, "the value of " + key + " (" + std::to_string(*value) + "), for which it is an alias");
  if (value) return *value;
  if (aliased) return *aliased;
  throw fields.refusal(key, "an integer >= 1 (" + why + ")");
}

// transformers' ACT2FN names, by the function they compute. gelu_fast rounds sqrt(2/pi) to
// 0.7978845608, the same fp32 number, and factors the cubic differently: the tanh GELU to
// rounding, as gelu_pytorch_tanh (a C kernel) is. gelu_10 (clipped), quick_gelu (a
// sigmoid) and the rest are other functions: refused.
std::optional<DecoderActivation> gpt2_activation(const std::string& name) {
  for (const char* tanh : {"gelu_new", "gelu_pytorch_tanh", "gelu_python_tanh", "gelu_accurate", "gelu_fast"})
    if (name == tanh) return DecoderActivation::GeluTanh;
  if (name == "gelu" || name == "gelu_python") return DecoderActivation::GeluErf;
  return std::nullopt;  // relu, silu, ...: GPT2Config takes them; gpubench's GPT-2 does not
}

void read_gpt2(const ConfigFields& fields, const FamilyName& family, DecoderConfig& config) {
  config.vocab_size = fields.dimension("vocab_size", would_assume(family, 0));
  config.hidden_size = gpt2_dimension(fields, "n_embd", "hidden_size", would_assume(family, 1));
  config.num_hidden_layers = gpt2_dimension(fields, "n_layer", "num_hidden_layers", would_assume(family, 3));
  config.num_attention_heads = gpt2_dimension(fields, "n_head", "num_attention_heads", would_assume(family, 4));
  config.max_position_embeddings =
      gpt2_dimension(fields, "n_positions", "max_position_embeddings", would_assume(family, 5));
  if (config.hidden_size % config.num_attention_heads != 0)
    throw fields.refusal("n_head", "a divisor of n_embd (" + std::to_string(config.hidden_size) + ")");
  config.num_key_value_heads = config.num_attention_heads;
  config.head_dim = config.hidden_size / config.num_attention_heads;
  config.intermediate_size = fields.optional_dimension("n_inner").value_or(4 * config.hidden_size);  // null: 4 * n_embd

  config.hidden_act = fields.text("activation_function", "gelu_new");
  const auto activation = gpt2_activation(config.hidden_act);
  if (!activation)
    throw fields.refusal("activation_function", "the tanh GELU (gelu_new, gelu_pytorch_tanh, gelu_python_tanh, "
                                                "gelu_accurate, gelu_fast), gelu or gelu_python");
  config.activation = *activation;
  config.norm_eps = fields.number("layer_norm_epsilon", 1e-5, 0.0, kInfinity);
  config.tie_word_embeddings = fields.flag("tie_word_embeddings", true);
  config.qkv_bias = config.o_bias = config.mlp_bias = true;  // Conv1D layers all have biases

  config.dropout_ignored.resid_pdrop = fields.number("resid_pdrop", 0.1, 0.0, 1.0);
  config.dropout_ignored.embd_pdrop = fields.number("embd_pdrop", 0.1, 0.0, 1.0);
  config.dropout_ignored.attn_pdrop = fields.number("attn_pdrop", 0.1, 0.0, 1.0);
  if (fields.flag("add_cross_attention", false))
    throw fields.refusal("add_cross_attention", "false (cross-attention blocks are an encoder-decoder's)");
  if (!fields.flag("scale_attn_weights", true))
    throw fields.refusal("scale_attn_weights", "true (attention scaled by 1/sqrt(head_dim); unscaled is not implemented)");
  if (fields.flag("scale_attn_by_inverse_layer_idx", false))
    throw fields.refusal("scale_attn_by_inverse_layer_idx", "false (per-layer 1/(layer+1) scaling is not implemented)");
  config.reorder_and_upcast_attn = fields.flag("reorder_and_upcast_attn", false);
}

// Mistral applies sliding_window to every layer; a missing key means MistralConfig's 4096.
void read_mistral_window(const ConfigFields& fields, DecoderConfig& config) {
  config.sliding_window = fields.written("sliding_window") ? fields.optional_dimension("sliding_window") : 4096;
  if (fields.find("layer_types") != nullptr)
    throw fields.refusal("layer_types", "absent (MistralConfig ignores it and windows every layer alike, so a file "
                                        "with it means something HF does not do)");
}

// Qwen2: a window only with use_sliding_window, and only on layers i >= max_window_layers
// (or those layer_types marks). Per-layer windows are not implemented: any such layer is
// refused, and use_sliding_window false is accepted whatever sliding_window says.
void read_qwen2_window(const ConfigFields& fields, DecoderConfig& config) {
  const json* layer_types = fields.find("layer_types");
  if (layer_types != nullptr) {
    bool full = layer_types->is_array() && std::int64_t(layer_types->size()) == config.num_hidden_layers;
    for (std::size_t i = 0; full && i < layer_types->size(); ++i) full = (*layer_types)[i] == "full_attention";
    if (!full)
      throw fields.refusal("layer_types", std::to_string(config.num_hidden_layers) +
                                              " \"full_attention\" entries, one per layer (sliding-window layers "
                                              "are not implemented)");
    return;  // an explicit list is what Qwen2 uses, whatever use_sliding_window says
  }
  const bool window = fields.flag("use_sliding_window", false) &&
                      (!fields.written("sliding_window") || fields.optional_dimension("sliding_window"));
  const auto max_window_layers = fields.optional_integer("max_window_layers").value_or(28);
  if (window && max_window_layers < config.num_hidden_layers)
    throw fields.refusal("use_sliding_window", "false, or max_window_layers (" + std::to_string(max_window_layers) +
                                                   ") >= num_hidden_layers (" +
                                                   std::to_string(config.num_hidden_layers) +
                                                   "): sliding-window layers are not implemented");
}

void read_llama_family(const ConfigFields& fields, const FamilyName& family, DecoderConfig& config) {
  const std::string type = family.model_type;
  config.vocab_size = fields.dimension("vocab_size", would_assume(family, 0));
  config.hidden_size = fields.dimension("hidden_size", would_assume(family, 1));
  config.intermediate_size = fields.dimension("intermediate_size", would_assume(family, 2));
  config.num_hidden_layers = fields.dimension("num_hidden_layers", would_assume(family, 3));
  config.num_attention_heads = fields.dimension("num_attention_heads", would_assume(family, 4));
  config.max_position_embeddings = fields.dimension("max_position_embeddings", would_assume(family, 5));
  // Absent, Llama's default is "as many as the query heads" (Llama-1 era files omit it);
  // Mistral's is 8 and Qwen2's 32, whatever the heads: those must say. null: heads, all three.
  if (type != "llama" && !fields.written("num_key_value_heads"))
    throw fields.refusal("num_key_value_heads", std::string("an integer >= 1 (required: ") + family.config_class +
                                                    " would silently assume " + (type == "mistral" ? "8" : "32") + ")");
  config.num_key_value_heads = fields.optional_dimension("num_key_value_heads").value_or(config.num_attention_heads);
  const auto head_dim = fields.optional_dimension("head_dim");
  // LlamaConfig refuses hidden % heads != 0 even with head_dim given; Mistral and Qwen2
  // only divide when head_dim is absent (where the division would truncate).
  if ((!head_dim || type == "llama") && config.hidden_size % config.num_attention_heads != 0)
    throw fields.refusal("num_attention_heads", "a divisor of hidden_size (" + std::to_string(config.hidden_size) + ")");
  config.head_dim = head_dim.value_or(config.hidden_size / config.num_attention_heads);
  if (config.head_dim % 2 != 0)  // RoPE rotates pairs of channels (HF's rotate_half splits head_dim in two)
    throw fields.refusal(head_dim ? "head_dim" : "num_attention_heads",
                         "a head width (head_dim " + std::to_string(config.head_dim) + ") that is even: RoPE rotates pairs");
  if (config.num_attention_heads % config.num_key_value_heads != 0)
    throw fields.refusal("num_key_value_heads",
                         "a divisor of num_attention_heads (" + std::to_string(config.num_attention_heads) + ")");

  config.hidden_act = fields.text("hidden_act", "silu");
  if (config.hidden_act != "silu" && config.hidden_act != "swish")
    throw fields.refusal("hidden_act", "\"silu\" or \"swish\" (the same function; the llama family's MLP is SwiGLU)");
  config.activation = DecoderActivation::Silu;
  config.norm_eps = fields.number("rms_norm_eps", 1e-6, 0.0, kInfinity);
  config.tie_word_embeddings = fields.flag("tie_word_embeddings", false);
  if (fields.number("attention_dropout", 0.0, 0.0, 1.0) != 0.0)
    throw fields.refusal("attention_dropout", "0 (dropout on attention probabilities is not applied)");

  // Biases: only Llama reads attention_bias / mlp_bias; Mistral and Qwen2 ignore the keys.
  config.qkv_bias = type == "qwen2" || (type == "llama" && fields.flag("attention_bias", false));
  config.o_bias = type == "llama" && fields.flag("attention_bias", false);
  config.mlp_bias = type == "llama" && fields.flag("mlp_bias", false);

  config.rope = read_rope_config(fields, config.max_position_embeddings);
  if (const auto pad = fields.optional_integer("pad_token_id")) {
    if (*pad < -config.vocab_size || *pad >= config.vocab_size)
      throw fields.refusal("pad_token_id", "null or a token id in [" + std::to_string(-config.vocab_size) + ", " +
                                               std::to_string(config.vocab_size) + ") (nn.Embedding's padding_idx)");
    config.pad_token_id = *pad < 0 ? *pad + config.vocab_size : *pad;
  }
  if (type == "mistral") read_mistral_window(fields, config);
  if (type == "qwen2") read_qwen2_window(fields, config);
}

}  // namespace

DecoderConfig parse_decoder_config(const json& root, const std::string& path) {
  if (!root.is_object())
    throw UsageError("config.json '" + path + "': is " + json_excerpt(root) + ": expected a JSON object");
  const ConfigFields fields(root, path);
  const FamilyName& family = family_of(fields);
  if (fields.find("quantization_config") != nullptr)
    throw fields.refusal("quantization_config", "absent (a quantized checkpoint; gpubench trains unquantized models)");
  DecoderConfig config;
  config.path = path;
  config.model_type = family.model_type;
  config.family = family.family;
  if (family.family == DecoderFamily::Gpt2)
    read_gpt2(fields, family, config);
  else
    read_llama_family(fields, family, config);
  config.parameter_count();  // refuses a count that overflows 64 bits
  return config;
}

DecoderConfig read_decoder_config(const std::string& path) {
  const MappedFile file(path, "config.json");
  if (file.size() > kMaxConfigBytes)
    throw UsageError("config.json '" + path + "': is " + std::to_string(file.size()) + " bytes: expected at most " +
                     std::to_string(kMaxConfigBytes));
  const std::string_view text(reinterpret_cast<const char*>(file.data()), file.size());
  return parse_decoder_config(parse_strict_json(text, 64, "config.json '" + path + "'"), path);
}

}  // namespace gpubench
