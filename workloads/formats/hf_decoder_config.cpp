#include "workloads/formats/hf_decoder_config.h"

#include <limits>
#include <string_view>

#include "core/config/errors.h"
#include "core/io/mapped_file.h"
#include "workloads/formats/hf_config_fields.h"
#include "workloads/formats/hf_family_parts.h"
#include "workloads/formats/hf_family_readers.h"
#include "workloads/formats/strict_json.h"

namespace gpubench {
namespace {

using nlohmann::json;

// A config.json is a few kB; this is only a bound on what gets parsed.
constexpr std::size_t kMaxConfigBytes = 16u << 20;

const FamilyDefaults kGpt2Defaults = {"GPT2Config", {"50257", "768", "3072", "12", "12", "1024"}};

std::string accepted_types() {
  std::string text = "one of \"gpt2\"";
  for (const DecoderFamilyEntry& family : decoder_families()) text += std::string(", \"") + family.model_type + "\"";
  return text + ", or a \"gemma3\" multimodal config (other model types are other models)";
}

void check_architecture(const ConfigFields& fields, const std::string& model_type, const std::string& architecture) {
  const json* architectures = fields.find("architectures");
  if (architectures != nullptr &&
      !(architectures->is_array() && architectures->size() == 1 && (*architectures)[0] == architecture))
    throw fields.refusal("architectures", "[\"" + architecture + "\"] for model_type \"" + model_type +
                                              "\" (its causal LM; other heads are other models)");
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

void read_gpt2(const ConfigFields& fields, DecoderConfig& config) {
  const FamilyDefaults& family = kGpt2Defaults;
  DecoderShape& s = config.shape;
  s.vocab = fields.dimension("vocab_size", family.would_assume(0));
  s.hidden = aliased_dimension(fields, "n_embd", "hidden_size", family.would_assume(1));
  s.layers = aliased_dimension(fields, "n_layer", "num_hidden_layers", family.would_assume(3));
  s.heads = aliased_dimension(fields, "n_head", "num_attention_heads", family.would_assume(4));
  s.max_positions = aliased_dimension(fields, "n_positions", "max_position_embeddings", family.would_assume(5));
  if (s.hidden % s.heads != 0) throw fields.refusal("n_head", "a divisor of n_embd (" + std::to_string(s.hidden) + ")");
  s.kv_heads = s.heads;
  s.head_dim = s.hidden / s.heads;
  s.intermediate = fields.optional_dimension("n_inner").value_or(4 * s.hidden);  // null: 4 * n_embd

  config.hidden_act = fields.text("activation_function", "gelu_new");
  const auto activation = gpt2_activation(config.hidden_act);
  if (!activation)
    throw fields.refusal("activation_function", "the tanh GELU (gelu_new, gelu_pytorch_tanh, gelu_python_tanh, "
                                                "gelu_accurate, gelu_fast), gelu or gelu_python");
  s.activation = *activation;
  s.norm = NormKind::LayerNorm;
  s.mlp = MlpKind::Plain;
  s.norm_eps = fields.number("layer_norm_epsilon", 1e-5, 0.0, kInfinity);
  s.tie_word_embeddings = fields.flag("tie_word_embeddings", true);
  s.qkv_bias = s.o_bias = s.mlp_bias = true;  // Conv1D layers all have biases

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

// A multimodal Gemma 3 (Gemma3ForConditionalGeneration): its text_config is a gemma3_text
// decoder, trained alone; its checkpoint holds the decoder under language_model. beside the
// vision tower and the projector, which are left out.
const json& gemma3_text_config(const ConfigFields& fields, DecoderConfig& config) {
  check_architecture(fields, "gemma3", "Gemma3ForConditionalGeneration");
  const json* text = fields.find("text_config");
  if (text == nullptr || !text->is_object())
    throw fields.refusal("text_config", "an object (the text decoder's config: model_type gemma3_text)");
  config.wrapper_model_type = "gemma3";
  config.weight_names.reference = "HF transformers Gemma3ForConditionalGeneration (its language model)";
  config.weight_names.renames = {{".model.", ".language_model.model."}, {".lm_head.", ".language_model.lm_head."}};
  config.weight_names.ignored_prefixes = {"vision_tower.", "multi_modal_projector."};
  config.not_applied.push_back("a multimodal gemma3 config: its text decoder (text_config) trains on tokens; the "
                               "vision tower and the projector are not built");
  return *text;
}

void read_decoder_family(const ConfigFields& fields, const std::string& type, DecoderConfig& config) {
  for (const DecoderFamilyEntry& family : decoder_families()) {
    if (type != family.model_type) continue;
    if (config.wrapper_model_type.empty()) check_architecture(fields, type, family.architecture);
    config.model_type = family.model_type;
    config.shape.model_type = family.model_type;
    config.family = DecoderFamily::Decoder;
    family.read(fields, family.defaults, config);
    return;
  }
  throw fields.refusal("model_type", accepted_types());
}

}  // namespace

DecoderConfig parse_decoder_config(const json& root, const std::string& path) {
  if (!root.is_object())
    throw UsageError("config.json '" + path + "': is " + json_excerpt(root) + ": expected a JSON object");
  const ConfigFields fields(root, path);
  const json* type = fields.find("model_type");
  if (type == nullptr || !type->is_string()) throw fields.refusal("model_type", accepted_types());
  if (fields.find("quantization_config") != nullptr)
    throw fields.refusal("quantization_config", "absent (a quantized checkpoint; gpubench trains unquantized models)");
  DecoderConfig config;
  config.path = path;
  if (*type == "gpt2") {
    check_architecture(fields, "gpt2", "GPT2LMHeadModel");
    config.family = DecoderFamily::Gpt2;
    config.model_type = config.shape.model_type = "gpt2";
    read_gpt2(fields, config);
  } else if (*type == "gemma3") {
    const json& text = gemma3_text_config(fields, config);
    const ConfigFields text_fields(text, path, "text_config.");
    const json* text_type = text_fields.find("model_type");
    if (text_type != nullptr && *text_type != "gemma3_text")
      throw text_fields.refusal("model_type", "\"gemma3_text\" (Gemma 3's text decoder)");
    read_decoder_family(text_fields, "gemma3_text", config);
    config.shape.model_type = config.model_type = "gemma3";
  } else {
    read_decoder_family(fields, type->get<std::string>(), config);
  }
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
