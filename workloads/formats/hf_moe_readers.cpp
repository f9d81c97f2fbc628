// The mixture-of-experts families: their attention is a dense family's (Mistral's, Qwen2's,
// Qwen3's, OLMo's with full-width q/k norms), their MLP on sparse layers routed experts
// (MoeShape, decoder_shape.h), each as transformers 5.17 computes it (tests/workloads/hf_moe_cases.py).
#include <algorithm>

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

}  // namespace

const std::vector<DecoderFamilyEntry>& moe_families() {
  static const std::vector<DecoderFamilyEntry> families = {
      {"mixtral", "MixtralForCausalLM", {"MixtralConfig", {"32000", "4096", "14336", "32", "32", "131072"}}, read_mixtral},
      {"qwen2_moe", "Qwen2MoeForCausalLM", {"Qwen2MoeConfig", {"151936", "2048", "5632", "24", "16", "32768"}}, read_qwen2_moe},
      {"qwen3_moe", "Qwen3MoeForCausalLM", {"Qwen3MoeConfig", {"151936", "2048", "6144", "24", "32", "32768"}}, read_qwen3_moe},
      {"olmoe", "OlmoeForCausalLM", {"OlmoeConfig", {"50304", "2048", "2048", "16", "16", "4096"}}, read_olmoe},
  };
  return families;
}

}  // namespace gpubench
