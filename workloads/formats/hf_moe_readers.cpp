// The mixture-of-experts families: their attention is a dense family's (Mistral's, Qwen2's,
// Qwen3's, OLMo's with full-width q/k norms; gpt-oss's with sinks) or multi-head latent
// attention (DeepSeek-V3), their MLP on sparse layers routed experts (MoeShape,
// decoder_shape.h), each as transformers 5.17 computes it (tests/workloads/hf_moe_cases.py).
#include <algorithm>
#include <cmath>

#include "workloads/formats/hf_family_parts.h"

namespace gpubench {
namespace {

// A count the family's config class would silently assume when absent: required.
std::int64_t required_count(const ConfigFields& fields, const FamilyDefaults& defaults, const std::string& key,
                            const char* assumed) {
  return fields.dimension(key, std::string("required: ") + defaults.config_class + " would silently assume " + assumed);
}

// The router, the experts' width and the loss HF computes: with output_router_logits, the
// load-balancing loss times router_aux_loss_coef is added to the cross-entropy.
void read_routing(const ConfigFields& fields, const FamilyDefaults& defaults, const char* experts_key,
                  const char* assumed_experts, const char* assumed_top_k, double aux_default, DecoderConfig& config) {
  MoeShape& moe = config.shape.moe;
  // Every MoE config class maps num_experts and num_local_experts onto one another.
  const std::string alias = std::string(experts_key) == "num_experts" ? "num_local_experts" : "num_experts";
  moe.experts = aliased_dimension(fields, experts_key, alias,
                                  std::string("required: ") + defaults.config_class + " would silently assume " + assumed_experts);
  moe.top_k = required_count(fields, defaults, "num_experts_per_tok", assumed_top_k);
  if (moe.top_k > moe.experts)
    throw fields.refusal("num_experts_per_tok", "at most " + std::string(experts_key) + " (" + std::to_string(moe.experts) + ")");
  if (fields.flag("output_router_logits", false))
    moe.aux_loss_coef = fields.number("router_aux_loss_coef", aux_default, 0.0, kInfinity);
}

// Qwen's sparse layers: not in mlp_only_layers, and (i + 1) a multiple of decoder_sparse_step.
void read_sparse_layers(const ConfigFields& fields, DecoderConfig& config) {
  const std::int64_t step = fields.optional_dimension("decoder_sparse_step").value_or(1);
  std::vector<bool> sparse(static_cast<std::size_t>(config.shape.layers));
  for (std::int64_t i = 0; i < config.shape.layers; ++i) sparse[static_cast<std::size_t>(i)] = (i + 1) % step == 0;
  if (const nlohmann::json* dense = fields.find("mlp_only_layers")) {
    const std::string expected = "a list of layer indices in [0, " + std::to_string(config.shape.layers) + ")";
    if (!dense->is_array()) throw fields.refusal("mlp_only_layers", expected);
    for (const nlohmann::json& layer : *dense) {
      const auto index = fields.as_integer(layer);
      if (!index || *index < 0 || *index >= config.shape.layers) throw fields.refusal("mlp_only_layers", expected);
      sparse[static_cast<std::size_t>(*index)] = false;
    }
  }
  config.shape.moe.sparse = sparse;
}

void read_mixtral(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  DimensionRules rules;
  rules.kv_heads_default = 8;
  read_llama_like(fields, defaults, config, rules);
  config.shape.norm_eps = fields.number("rms_norm_eps", 1e-5, 0.0, kInfinity);
  read_single_rope(fields, config);
  read_pad_token(fields, std::nullopt, config);
  read_routing(fields, defaults, "num_local_experts", "8", "2", 0.001, config);
  MoeShape& moe = config.shape.moe;
  moe.expert_intermediate = config.shape.intermediate;
  moe.renormalize = true;                // always, and kept in fp32
  moe.weights_in_logits_dtype = false;
  if (fields.number("router_jitter_noise", 0.0, 0.0, 1.0) != 0.0)
    config.not_applied.push_back("router_jitter_noise is not applied (random noise on the MoE input in training)");
  const auto window = read_window(fields, std::nullopt);  // every layer when set, as Mistral
  window_every_layer(config, window);
  config.weight_names.reference = "HF transformers MixtralForCausalLM";
  config.weight_names.renames = {{".mlp.", ".block_sparse_moe."}, {".gate_proj.", ".w1."}, {".up_proj.", ".w3."},
                                 {".down_proj.", ".w2."}};
}

// Qwen2-MoE and Qwen3-MoE: experts of moe_intermediate_size on the sparse layers, dense
// MLPs of intermediate_size elsewhere; norm_topk_prob renormalises.
void read_qwen_moe(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config,
                   const char* assumed_experts, const char* assumed_top_k, const char* assumed_width) {
  read_routing(fields, defaults, "num_experts", assumed_experts, assumed_top_k, 0.001, config);
  MoeShape& moe = config.shape.moe;
  moe.expert_intermediate = required_count(fields, defaults, "moe_intermediate_size", assumed_width);
  moe.renormalize = fields.flag("norm_topk_prob", false);
  read_sparse_layers(fields, config);
  read_single_rope(fields, config);
  read_pad_token(fields, std::nullopt, config);
}

void read_qwen2_moe(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  DimensionRules rules;
  rules.kv_heads_default = 16;
  read_llama_like(fields, defaults, config, rules);
  config.shape.qkv_bias = fields.flag("qkv_bias", true);
  read_qwen_moe(fields, defaults, config, "60", "4", "1408");
  config.shape.moe.shared_intermediate = fields.optional_dimension("shared_expert_intermediate_size").value_or(0);
  if (!fields.written("shared_expert_intermediate_size"))
    throw fields.refusal("shared_expert_intermediate_size", "an integer >= 1 (required: Qwen2MoeConfig would silently assume 5632)");
  // Windows on even layers below max_window_layers, with use_sliding_window.
  const bool use = fields.flag("use_sliding_window", false);
  const auto window = use ? read_window(fields, 4096) : std::nullopt;
  const auto max_window_layers = fields.optional_integer("max_window_layers").value_or(28);
  const auto sliding = read_sliding_layers(fields, config.shape.layers,
                                           [&](std::int64_t i) { return window && (i + 1) % 2 != 0 && i < max_window_layers; });
  set_layer_attention(config, sliding, window_for(fields, sliding, window), [](std::int64_t, bool) { return 0; });
}

void read_qwen3_moe(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  DimensionRules rules;
  rules.kv_heads_default = 4;
  read_llama_like(fields, defaults, config, rules);  // head_dim: as written, else hidden / heads
  config.shape.qkv_bias = config.shape.o_bias = fields.flag("attention_bias", false);
  config.shape.qk_norm = QkNorm::PerHead;
  read_qwen_moe(fields, defaults, config, "128", "8", "768");
  const auto window = fields.flag("use_sliding_window", false) ? read_window(fields, 4096) : std::nullopt;
  window_every_layer(config, window);
}

void read_olmoe(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  read_llama_like(fields, defaults, config, {});
  config.shape.norm_eps = fields.number("rms_norm_eps", 1e-5, 0.0, kInfinity);
  config.shape.qkv_bias = config.shape.o_bias = fields.flag("attention_bias", false);
  config.shape.qk_norm = QkNorm::FullWidth;
  if (fields.find("clip_qkv") != nullptr) throw fields.refusal("clip_qkv", "null or absent (clamping q, k and v is not implemented)");
  read_single_rope(fields, config);
  read_pad_token(fields, 1, config);
  read_routing(fields, defaults, "num_experts", "64", "8", 0.01, config);
  config.shape.moe.expert_intermediate = config.shape.intermediate;
  config.shape.moe.renormalize = fields.flag("norm_topk_prob", false);
}

// gpt-oss: every layer sparse (num_local_experts of intermediate_size, stacked with their
// biases, gpt-oss's GLU clamped at 7), a router with a bias whose top k logits are
// softmaxed, attention with biases and a sink per head, windows on the layers layer_types
// names (by default the even ones), YaRN unless the file says otherwise.
void read_gpt_oss(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  DimensionRules rules;
  rules.kv_heads_default = 8;
  rules.head_dim_default = 64;
  read_dimensions(fields, defaults, rules, config);
  DecoderShape& s = config.shape;
  // GptOssExperts never reads hidden_act: its GLU is fixed.
  config.hidden_act = fields.text("hidden_act", "silu");
  if (config.hidden_act != "silu")
    config.not_applied.push_back("hidden_act " + config.hidden_act + " is not read by gpt-oss's experts (nor by HF): "
                                 "their GLU is (up + 1) * gate * sigmoid(1.702 gate), clamped at 7");
  s.norm_eps = fields.number("rms_norm_eps", 1e-5, 0.0, kInfinity);
  s.tie_word_embeddings = fields.flag("tie_word_embeddings", false);
  s.qkv_bias = s.o_bias = fields.flag("attention_bias", true);
  s.attention_sinks = true;
  note_dropout(fields, "attention_dropout", config);
  read_pad_token(fields, std::nullopt, config);
  RopeReading how;
  how.default_theta = 150000.0;
  read_single_rope(fields, config, how);
  if (fields.find("rope_scaling") == nullptr && fields.find("rope_parameters") == nullptr) {
    RopeShape& rope = s.ropes[0];  // GptOssConfig's default: YaRN over a 4096-token original context
    rope.type = RopeShape::Type::Yarn;
    rope.factor = 32.0;
    rope.truncate = false;
    rope.original_max_positions = 4096;
  }
  const auto window = read_window(fields, 128);
  const auto sliding = read_sliding_layers(fields, s.layers, [](std::int64_t i) { return (i + 1) % 2 != 0; });
  set_layer_attention(config, sliding, window_for(fields, sliding, window), [](std::int64_t, bool) { return 0; });
  read_routing(fields, defaults, "num_local_experts", "128", "4", 0.001, config);
  MoeShape& moe = s.moe;
  moe.expert_intermediate = s.intermediate;
  moe.router = MoeShape::Router::TopKSoftmax;
  moe.router_bias = true;
  moe.layout = MoeShape::Experts::Stacked;
  moe.expert_bias = true;
  // Fixed in transformers 5.17's GptOssExperts (limit 7.0, alpha 1.702): a file's
  // swiglu_limit is not read, so another value means a model HF does not compute.
  moe.swiglu_limit = 7.0;
  if (fields.number("swiglu_limit", 7.0, -kInfinity, kInfinity) != 7.0)
    throw fields.refusal("swiglu_limit", "7.0 or absent (transformers 5.17's GptOssExperts clamps at 7.0 whatever the "
                                         "config says)");
  config.weight_names.reference = "HF transformers GptOssForCausalLM";
  config.weight_names.renames = {{".mlp.gate.", ".mlp.router."}};
}

// A DeepSeek key HF's DeepseekV3 never reads, refused unless it says what HF computes anyway.
void require_as_computed(const ConfigFields& fields, const std::string& key, const nlohmann::json& computed,
                         const std::string& what) {
  const nlohmann::json* value = fields.find(key);
  if (value != nullptr && *value != computed)
    throw fields.refusal(key, computed.dump() + " or absent (transformers 5.17's DeepseekV3 always " + what + ")");
}

// DeepSeek-V3's YaRN mscale folded into the softmax scale: qk_head_dim^-0.5 times
// (0.1 mscale_all_dim ln(factor) + 1)^2 (HF's yarn_apply_mscale, where factor > 1).
double latent_attention_scale(const ConfigFields& fields, const RopeShape& rope, std::int64_t qk_head_dim) {
  double scale = 1.0 / std::sqrt(static_cast<double>(qk_head_dim));
  const double all_dim = rope.mscale_all_dim.value_or(0.0);
  if (rope.type == RopeShape::Type::Yarn && all_dim != 0.0 && rope.factor > 1.0) {
    const double mscale = 0.1 * all_dim * std::log(rope.factor) + 1.0;
    scale *= mscale * mscale;
  }
  for (const char* key : {"rope_scaling", "rope_parameters"}) {
    const nlohmann::json* dict = fields.find(key);
    if (rope.type != RopeShape::Type::Yarn && rope.type != RopeShape::Type::Default && dict != nullptr &&
        dict->is_object() && dict->contains("mscale_all_dim"))
      throw fields.refusal(std::string(key) + ".mscale_all_dim", "absent (gpubench applies DeepSeek's mscale with YaRN only)");
  }
  return scale;
}

void read_latent_attention(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  DecoderShape& s = config.shape;
  LatentAttentionShape latent;
  if (!fields.written("q_lora_rank")) throw fields.refusal("q_lora_rank", "an integer >= 1 or null (required: " +
                                                                              std::string(defaults.config_class) +
                                                                              " would silently assume 1536)");
  latent.q_lora_rank = fields.optional_dimension("q_lora_rank").value_or(0);
  latent.kv_lora_rank = required_count(fields, defaults, "kv_lora_rank", "512");
  latent.qk_rope_head_dim = required_count(fields, defaults, "qk_rope_head_dim", "64");
  latent.qk_nope_head_dim = required_count(fields, defaults, "qk_nope_head_dim", "128");
  latent.v_head_dim = required_count(fields, defaults, "v_head_dim", "128");
  if (latent.qk_rope_head_dim % 2 != 0) throw fields.refusal("qk_rope_head_dim", "an even integer (RoPE rotates pairs)");
  // HF's config sets head_dim to qk_rope_head_dim (the RoPE's width) whatever the file says.
  s.head_dim = latent.qk_rope_head_dim;
  // MLA's keys and values are per head; HF's attention would repeat them by the groups
  // num_key_value_heads asks for (an error where v_head_dim differs from the key's width).
  s.kv_heads = s.heads;
  if (fields.optional_dimension("num_key_value_heads").value_or(s.heads) != s.heads)
    throw fields.refusal("num_key_value_heads", "num_attention_heads (" + std::to_string(s.heads) +
                                                    ") or null: latent attention's keys and values are per head");
  s.qkv_bias = s.o_bias = fields.flag("attention_bias", false);
  s.rope_interleave = fields.flag("rope_interleave", true);
  read_single_rope(fields, config);
  s.attention_scale = latent_attention_scale(fields, s.ropes[0], latent.qk_head_dim());
  s.latent = latent;
}

void read_deepseek_v3(const ConfigFields& fields, const FamilyDefaults& defaults, DecoderConfig& config) {
  DecoderShape& s = config.shape;
  s.vocab = fields.dimension("vocab_size", defaults.would_assume(0));
  s.hidden = fields.dimension("hidden_size", defaults.would_assume(1));
  s.intermediate = fields.dimension("intermediate_size", defaults.would_assume(2));
  s.layers = fields.dimension("num_hidden_layers", defaults.would_assume(3));
  s.heads = fields.dimension("num_attention_heads", defaults.would_assume(4));
  s.max_positions = fields.dimension("max_position_embeddings", defaults.would_assume(5));
  read_activation(fields, "hidden_act", "silu", config);
  s.norm_eps = fields.number("rms_norm_eps", 1e-6, 0.0, kInfinity);
  s.tie_word_embeddings = fields.flag("tie_word_embeddings", false);
  note_dropout(fields, "attention_dropout", config);
  read_pad_token(fields, std::nullopt, config);
  read_latent_attention(fields, defaults, config);
  MoeShape& moe = s.moe;
  moe.experts = aliased_dimension(fields, "n_routed_experts", "num_local_experts",
                                  "required: DeepseekV3Config would silently assume 256");
  moe.top_k = required_count(fields, defaults, "num_experts_per_tok", "8");
  moe.expert_intermediate = required_count(fields, defaults, "moe_intermediate_size", "2048");
  moe.shared_intermediate = moe.expert_intermediate * required_count(fields, defaults, "n_shared_experts", "1");
  moe.shared_expert_gate = false;
  moe.router = MoeShape::Router::Sigmoid;
  moe.score_correction_bias = true;
  moe.renormalize = fields.flag("norm_topk_prob", true);
  moe.routed_scaling = fields.number("routed_scaling_factor", 2.5, 0.0, kInfinity);
  moe.groups = required_count(fields, defaults, "n_group", "8");
  moe.topk_groups = required_count(fields, defaults, "topk_group", "4");
  if (moe.experts % moe.groups != 0 || moe.experts / moe.groups < 2)
    throw fields.refusal("n_group", "a divisor of n_routed_experts (" + std::to_string(moe.experts) +
                                        ") leaving at least 2 experts a group (a group's worth is its two best)");
  if (moe.topk_groups > moe.groups) throw fields.refusal("topk_group", "at most n_group (" + std::to_string(moe.groups) + ")");
  if (moe.top_k > moe.experts) throw fields.refusal("num_experts_per_tok", "at most n_routed_experts");
  if (!fields.written("first_k_dense_replace"))
    throw fields.refusal("first_k_dense_replace", "an integer >= 0 (required: DeepseekV3Config would silently assume 3)");
  const std::int64_t dense = fields.optional_integer("first_k_dense_replace").value_or(-1);
  if (dense < 0) throw fields.refusal("first_k_dense_replace", "an integer >= 0");
  for (std::int64_t i = 0; i < s.layers; ++i) moe.sparse.push_back(i >= dense);
  require_as_computed(fields, "scoring_func", "sigmoid", "scores experts by a sigmoid");
  require_as_computed(fields, "topk_method", "noaux_tc", "chooses by group-limited top-k with the correction bias");
  require_as_computed(fields, "moe_layer_freq", 1, "makes every layer from first_k_dense_replace on sparse");
  if (fields.flag("output_router_logits", false))
    config.not_applied.push_back("output_router_logits: DeepseekV3ForCausalLM adds no load-balancing loss (nor does HF)");
  for (const char* mtp : {"num_nextn_predict_layers", "num_mtp_layers"})
    if (fields.optional_integer(mtp).value_or(0) > 0)
      config.not_applied.push_back(std::string(mtp) + ": the multi-token-prediction layers are not built (HF's "
                                                      "DeepseekV3ForCausalLM builds none; they serve generation only)");
  config.weight_names.reference = "HF transformers DeepseekV3ForCausalLM";
  config.weight_names.renames = {{".mlp.shared_expert.", ".mlp.shared_experts."}};
}

}  // namespace

const std::vector<DecoderFamilyEntry>& moe_families() {
  static const std::vector<DecoderFamilyEntry> families = {
      {"mixtral", "MixtralForCausalLM", {"MixtralConfig", {"32000", "4096", "14336", "32", "32", "131072"}}, read_mixtral},
      {"qwen2_moe", "Qwen2MoeForCausalLM", {"Qwen2MoeConfig", {"151936", "2048", "5632", "24", "16", "32768"}}, read_qwen2_moe},
      {"qwen3_moe", "Qwen3MoeForCausalLM", {"Qwen3MoeConfig", {"151936", "2048", "6144", "24", "32", "32768"}}, read_qwen3_moe},
      {"olmoe", "OlmoeForCausalLM", {"OlmoeConfig", {"50304", "2048", "2048", "16", "16", "4096"}}, read_olmoe},
      {"gpt_oss", "GptOssForCausalLM", {"GptOssConfig", {"201088", "2880", "2880", "36", "64", "131072"}}, read_gpt_oss},
      {"deepseek_v3", "DeepseekV3ForCausalLM", {"DeepseekV3Config", {"129280", "7168", "18432", "61", "128", "4096"}},
       read_deepseek_v3},
  };
  return families;
}

}  // namespace gpubench
