#include "workloads/formats/hf_family_readers.h"

#include <cmath>
#include <limits>

#include "workloads/formats/hf_family_parts.h"

namespace gpubench {
namespace {


void read_llama(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  DimensionRules rules;
  rules.heads_divide_hidden_always = true;
  read_llama_like(fields, defaults, config, rules);
  read_llama_biases(fields, config);
  read_single_rope(fields, config);
  read_pad_token(fields, std::nullopt, config);
}

// Mistral applies sliding_window to every layer; a missing key means MistralConfig's 4096.
void read_mistral(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  DimensionRules rules;
  rules.kv_heads_default = 8;
  read_llama_like(fields, defaults, config, rules);
  read_single_rope(fields, config);
  read_pad_token(fields, std::nullopt, config);
  if (fields.find("layer_types") != nullptr)
    throw fields.refusal("layer_types", "absent (MistralConfig ignores it and windows every layer alike, so a file "
                                        "with it means something HF does not do)");
  const auto window = read_window(fields, 4096);
  window_every_layer(config, window);
}

void read_qwen2(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  DimensionRules rules;
  rules.kv_heads_default = 32;
  read_llama_like(fields, defaults, config, rules);
  config.shape.qkv_bias = true;  // hard-wired on q, k and v; attention_bias and mlp_bias are not read
  read_single_rope(fields, config);
  read_pad_token(fields, std::nullopt, config);
  read_qwen_windows(fields, config);
}

void read_qwen3(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  DimensionRules rules;
  rules.kv_heads_default = 32;
  rules.head_dim_default = 128;
  read_llama_like(fields, defaults, config, rules);
  config.shape.qkv_bias = config.shape.o_bias = fields.flag("attention_bias", false);
  config.shape.qk_norm = QkNorm::PerHead;
  read_single_rope(fields, config);
  read_pad_token(fields, std::nullopt, config);
  read_qwen_windows(fields, config);
}

// Gemma 2 and 3: Gemma's RMSNorm (1 + w), four norms a block, embeddings times
// sqrt(hidden), a GELU-gated MLP, q k scaled by query_pre_attn_scalar^-1/2, windows on
// alternating layers, padding row 0 unless said.
void read_gemma_common(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config,
                       bool heads_divide_hidden) {
  DimensionRules rules;
  rules.kv_heads_default = 4;
  rules.head_dim_default = 256;
  rules.heads_divide_hidden_always = heads_divide_hidden;
  read_dimensions(fields, defaults, rules, config);
  DecoderShape& s = config.shape;
  read_activation(fields, "hidden_activation", "gelu_pytorch_tanh", config);
  s.norm = NormKind::RmsOnePlus;
  s.placement = NormPlacement::Sandwich;
  s.norm_eps = fields.number("rms_norm_eps", 1e-6, 0.0, kInfinity);
  s.tie_word_embeddings = fields.flag("tie_word_embeddings", true);
  s.qkv_bias = s.o_bias = fields.flag("attention_bias", false);
  s.embedding_scale = static_cast<double>(static_cast<float>(std::sqrt(static_cast<double>(s.hidden))));  // an fp32 buffer
  s.attention_scale = 1.0 / std::sqrt(fields.number("query_pre_attn_scalar", 256.0, 0.0, kInfinity));
  if (!(*s.attention_scale < kInfinity)) throw fields.refusal("query_pre_attn_scalar", "a number > 0");
  note_dropout(fields, "attention_dropout", config);
  if (fields.flag("use_bidirectional_attention", false))
    throw fields.refusal("use_bidirectional_attention", "false or absent (bidirectional attention is an encoder's)");
  read_pad_token(fields, 0, config);
}

std::optional<double> read_softcap(const ConfigFields& fields, const std::string& key, std::optional<double> absent) {
  if (!fields.written(key)) return absent;
  if (fields.find(key) == nullptr) return std::nullopt;  // null: none
  const double cap = fields.number(key, 0.0, 0.0, kInfinity);
  if (!(cap > 0.0)) throw fields.refusal(key, "a number > 0 or null");
  return cap;
}

void read_gemma2(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  read_gemma_common(fields, defaults, config, /*heads_divide_hidden=*/true);
  read_single_rope(fields, config);
  // HF's eager attention caps the scores; its default SDPA attention drops the cap: gpubench
  // computes the model's math, the eager one.
  config.shape.attention_softcap = read_softcap(fields, "attn_logit_softcapping", 50.0);
  config.shape.final_softcap = read_softcap(fields, "final_logit_softcapping", 30.0);
  if (config.shape.attention_softcap)
    config.not_applied.push_back("HF's default attention (sdpa) ignores attn_logit_softcapping; gpubench applies it, "
                                 "as HF's eager attention does (the model's math)");
  const auto window = read_window(fields, 4096);
  const auto sliding = read_sliding_layers(fields, config.shape.layers, [](std::int64_t i) { return (i + 1) % 2 != 0; });
  set_layer_attention(config, sliding, window_for(fields, sliding, window), [](std::int64_t, bool) { return 0; });
}

void read_gemma3_text(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  read_gemma_common(fields, defaults, config, /*heads_divide_hidden=*/false);
  config.shape.qk_norm = QkNorm::PerHead;
  // Read and never applied by Gemma 3's attention (modeling_gemma3.py passes no softcap).
  if (fields.find("attn_logit_softcapping") != nullptr)
    config.not_applied.push_back("attn_logit_softcapping: Gemma 3's attention does not apply it (nor does HF)");
  // Gemma3ForCausalLM caps the logits; the multimodal wrapper's head does not.
  if (config.wrapper_model_type.empty()) config.shape.final_softcap = read_softcap(fields, "final_logit_softcapping", std::nullopt);
  RopeReading how;
  how.head_dim = config.shape.head_dim;
  how.default_theta = 1e6;
  const auto ropes = read_rope_per_layer_type(fields, config.shape.max_positions, how, 1e4);
  config.shape.ropes = {ropes.at("full_attention"), ropes.at("sliding_attention")};
  const std::string pattern_key = fields.written("sliding_window_pattern") ? "sliding_window_pattern" : "_sliding_window_pattern";
  const std::int64_t pattern = fields.optional_dimension(pattern_key).value_or(6);
  const auto window = read_window(fields, 4096);
  const auto sliding = read_sliding_layers(fields, config.shape.layers, [&](std::int64_t i) { return (i + 1) % pattern != 0; });
  set_layer_attention(config, sliding, window_for(fields, sliding, window), [](std::int64_t, bool slide) { return slide ? 1 : 0; });
}

void read_phi3(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  read_llama_like(fields, defaults, config, {});
  config.shape.norm_eps = fields.number("rms_norm_eps", 1e-5, 0.0, kInfinity);
  config.shape.qkv_layout = QkvLayout::FusedBlocked;
  config.shape.mlp = MlpKind::GatedFused;
  note_dropout(fields, "resid_pdrop", config);  // embd_pdrop is declared and unused by HF's Phi-3
  RopeReading how;
  how.partial_rotary = true;
  how.original_override = fields.optional_dimension("original_max_position_embeddings").value_or(4096);
  read_single_rope(fields, config, how);
  read_pad_token(fields, 32000, config);
  const auto window = read_window(fields, std::nullopt);  // every layer when set
  window_every_layer(config, window);
}

void read_olmo2(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  read_llama_like(fields, defaults, config, {});
  config.shape.norm_eps = fields.number("rms_norm_eps", 1e-5, 0.0, kInfinity);
  config.shape.norm = NormKind::RmsWeightFp32;
  config.shape.placement = NormPlacement::Post;
  config.shape.qk_norm = QkNorm::FullWidth;
  config.shape.qkv_bias = config.shape.o_bias = fields.flag("attention_bias", false);
  read_single_rope(fields, config);
  read_pad_token(fields, 1, config);
}

// SmolLM3: no_rope_layers[i] is layer i's use-RoPE flag (1: RoPE, 0: none); by default
// every fourth layer has none.
void read_smollm3(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  DimensionRules rules;
  rules.kv_heads_default = 4;
  read_llama_like(fields, defaults, config, rules);
  config.shape.tie_word_embeddings = fields.flag("tie_word_embeddings", true);
  read_llama_biases(fields, config);
  read_single_rope(fields, config);
  read_pad_token(fields, 128004, config);
  const std::int64_t layers = config.shape.layers;
  const std::int64_t interval = fields.optional_dimension("no_rope_layer_interval").value_or(4);
  std::vector<bool> rope(static_cast<std::size_t>(layers));
  const nlohmann::json* flags = fields.find("no_rope_layers");
  const std::string expected = std::to_string(layers) + " entries, each 1 (RoPE) or 0 (none)";
  if (flags != nullptr && (!flags->is_array() || std::int64_t(flags->size()) != layers)) throw fields.refusal("no_rope_layers", expected);
  for (std::int64_t i = 0; i < layers; ++i) {
    if (flags == nullptr) {
      rope[i] = (i + 1) % interval != 0;
      continue;
    }
    const nlohmann::json& flag = (*flags)[static_cast<std::size_t>(i)];
    if (flag != 0 && flag != 1) throw fields.refusal("no_rope_layers", expected);
    rope[i] = flag == 1;
  }
  const bool use_window = fields.flag("use_sliding_window", false);
  const auto window = use_window ? read_window(fields, std::nullopt) : std::nullopt;
  const auto sliding = read_sliding_layers(fields, layers, [&](std::int64_t i) { return window && !rope[i]; });
  set_layer_attention(config, sliding, window_for(fields, sliding, window),
                      [&](std::int64_t i, bool) { return rope[static_cast<std::size_t>(i)] ? 0 : -1; });
}

void read_granite(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  read_llama(fields, defaults, config);
  DecoderShape& s = config.shape;
  const auto positive = [&](const char* key) {
    const double value = fields.number(key, 1.0, 0.0, kInfinity);
    if (!(value > 0.0)) throw fields.refusal(key, "a number > 0");
    return value;
  };
  s.embedding_scale = positive("embedding_multiplier");
  s.residual_multiplier = positive("residual_multiplier");
  s.attention_scale = positive("attention_multiplier");  // in place of 1/sqrt(head_dim)
  s.logits_divisor = positive("logits_scaling");
}

void read_starcoder2(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  DimensionRules rules;
  rules.kv_heads_default = 2;
  read_dimensions(fields, defaults, rules, config);
  DecoderShape& s = config.shape;
  read_activation(fields, "hidden_act", "gelu_pytorch_tanh", config);
  s.norm = NormKind::LayerNorm;
  s.norm_eps = fields.number("norm_epsilon", 1e-5, 0.0, kInfinity);
  s.mlp = MlpKind::Plain;
  s.qkv_bias = s.o_bias = s.mlp_bias = fields.flag("use_bias", true);
  s.tie_word_embeddings = fields.flag("tie_word_embeddings", true);
  for (const char* dropout : {"attention_dropout", "residual_dropout", "embedding_dropout"}) note_dropout(fields, dropout, config);
  read_single_rope(fields, config);
  read_pad_token(fields, std::nullopt, config);
  config.weight_names.renames = {{".mlp.up_proj.", ".mlp.c_fc."}, {".mlp.down_proj.", ".mlp.c_proj."}};
  const auto window = read_window(fields, std::nullopt);  // every layer when set
  window_every_layer(config, window);
}

// GPT-NeoX (Pythia): LayerNorm, a fused head-interleaved query_key_value, partial rotary
// (rotary_pct), the MLP and attention read the same input (use_parallel_residual).
void read_gpt_neox(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  if (fields.written("num_key_value_heads"))
    throw fields.refusal("num_key_value_heads", "absent (GPT-NeoX has as many key/value heads as query heads)");
  read_dimensions(fields, defaults, {}, config);
  DecoderShape& s = config.shape;
  read_activation(fields, "hidden_act", "gelu", config);
  s.norm = NormKind::LayerNorm;
  s.norm_eps = fields.number("layer_norm_eps", 1e-5, 0.0, kInfinity);
  s.mlp = MlpKind::Plain;
  s.mlp_bias = true;
  s.qkv_bias = s.o_bias = fields.flag("attention_bias", true);
  s.qkv_layout = QkvLayout::FusedPerHead;
  s.parallel_residual = fields.flag("use_parallel_residual", true);
  s.tie_word_embeddings = fields.flag("tie_word_embeddings", false);
  for (const char* dropout : {"attention_dropout", "hidden_dropout"}) note_dropout(fields, dropout, config);
  RopeReading how;
  how.partial_rotary = true;
  how.default_theta = fields.number("rotary_emb_base", 10000.0, 0.0, kInfinity);
  read_single_rope(fields, config, how);
  if (fields.written("rotary_pct") && !fields.written("partial_rotary_factor")) {  // the 4.x spelling
    const double pct = fields.number("rotary_pct", 0.25, 0.0, 1.0);
    if (!(pct > 0.0)) throw fields.refusal("rotary_pct", "a number in (0, 1]");
    s.ropes[0].partial_rotary_factor = pct;
  } else if (!fields.written("partial_rotary_factor") && !fields.written("rope_parameters") && !fields.written("rope_scaling")) {
    s.ropes[0].partial_rotary_factor = 0.25;  // GPTNeoXConfig's rotary_pct
  }
  read_pad_token(fields, std::nullopt, config);
  config.weight_names.reference = "HF transformers GPTNeoXForCausalLM";
  config.weight_names.renames = {{".model.embed_tokens.", ".gpt_neox.embed_in."},
                                 {".model.norm.", ".gpt_neox.final_layer_norm."},
                                 {".model.", ".gpt_neox."},
                                 {".self_attn.qkv_proj.", ".attention.query_key_value."},
                                 {".self_attn.o_proj.", ".attention.dense."},
                                 {".mlp.up_proj.", ".mlp.dense_h_to_4h."},
                                 {".mlp.down_proj.", ".mlp.dense_4h_to_h."},
                                 {".lm_head.", ".embed_out."}};
  config.weight_names.ignored_suffixes = {".attention.bias", ".attention.masked_bias", ".rotary_emb.inv_freq"};
}

}  // namespace

const std::vector<DecoderFamilyEntry>& decoder_families() {
  static const std::vector<DecoderFamilyEntry> families = [] {
    std::vector<DecoderFamilyEntry> all = {
      {"llama", "LlamaForCausalLM", {"LlamaConfig", {"32000", "4096", "11008", "32", "32", "2048"}}, read_llama},
      {"mistral", "MistralForCausalLM", {"MistralConfig", {"32000", "4096", "14336", "32", "32", "131072"}}, read_mistral},
      {"qwen2", "Qwen2ForCausalLM", {"Qwen2Config", {"151936", "4096", "22016", "32", "32", "32768"}}, read_qwen2},
      {"qwen3", "Qwen3ForCausalLM", {"Qwen3Config", {"151936", "4096", "22016", "32", "32", "32768"}}, read_qwen3},
      {"gemma2", "Gemma2ForCausalLM", {"Gemma2Config", {"256000", "2304", "9216", "26", "8", "8192"}}, read_gemma2},
      {"gemma3_text", "Gemma3ForCausalLM", {"Gemma3TextConfig", {"262208", "2304", "9216", "26", "8", "131072"}}, read_gemma3_text},
      {"phi3", "Phi3ForCausalLM", {"Phi3Config", {"32064", "3072", "8192", "32", "32", "4096"}}, read_phi3},
      {"olmo2", "Olmo2ForCausalLM", {"Olmo2Config", {"50304", "4096", "11008", "32", "32", "2048"}}, read_olmo2},
      {"smollm3", "SmolLM3ForCausalLM", {"SmolLM3Config", {"128256", "2048", "11008", "36", "16", "32768"}}, read_smollm3},
      {"granite", "GraniteForCausalLM", {"GraniteConfig", {"32000", "4096", "11008", "32", "32", "2048"}}, read_granite},
      {"starcoder2", "Starcoder2ForCausalLM", {"Starcoder2Config", {"49152", "3072", "12288", "30", "24", "4096"}}, read_starcoder2},
      {"gpt_neox", "GPTNeoXForCausalLM", {"GPTNeoXConfig", {"50432", "6144", "24576", "44", "64", "2048"}}, read_gpt_neox},
    };
    all.insert(all.end(), moe_families().begin(), moe_families().end());
    return all;
  }();
  return families;
}

}  // namespace gpubench
