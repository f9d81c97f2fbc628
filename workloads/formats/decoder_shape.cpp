#include "workloads/formats/decoder_shape.h"

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

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

const char* activation_name(DecoderActivation activation) {
  switch (activation) {
    case DecoderActivation::Silu: return "silu";
    case DecoderActivation::GeluTanh: return "gelu_tanh";
    case DecoderActivation::GeluErf: return "gelu_erf";
  }
  return "unknown";
}

const char* norm_name(NormKind kind) {
  switch (kind) {
    case NormKind::Rms: return "rmsnorm";
    case NormKind::RmsWeightFp32: return "rmsnorm (weight applied in fp32)";
    case NormKind::RmsOnePlus: return "rmsnorm (1 + weight, fp32)";
    case NormKind::LayerNorm: return "layernorm";
  }
  return "unknown";
}

const char* placement_name(NormPlacement placement) {
  switch (placement) {
    case NormPlacement::Pre: return "pre";
    case NormPlacement::Post: return "post";
    case NormPlacement::Sandwich: return "sandwich";
  }
  return "unknown";
}

std::string RopeShape::type_name() const {
  switch (type) {
    case Type::Default: return "default";
    case Type::Linear: return "linear";
    case Type::Llama3: return "llama3";
    case Type::Yarn: return "yarn";
    case Type::LongRope: return "longrope";
  }
  return "unknown";
}

nlohmann::json RopeShape::describe() const {
  nlohmann::json out = {{"type", type_name()}, {"theta", theta}};
  if (partial_rotary_factor != 1.0) out["partial_rotary_factor"] = partial_rotary_factor;
  if (type != Type::Default) out["factor"] = factor;
  if (type == Type::Llama3) {
    out["low_freq_factor"] = low_freq_factor;
    out["high_freq_factor"] = high_freq_factor;
  }
  if (type == Type::Llama3 || type == Type::Yarn || type == Type::LongRope)
    out["original_max_position_embeddings"] = original_max_positions;
  if (type == Type::Yarn) {
    out["beta_fast"] = beta_fast;
    out["beta_slow"] = beta_slow;
    out["mscale"] = optional_json(mscale);
    out["mscale_all_dim"] = optional_json(mscale_all_dim);
    out["truncate"] = truncate;
  }
  if (type == Type::Yarn || type == Type::LongRope) out["attention_factor"] = optional_json(attention_factor);
  if (type == Type::LongRope) {
    out["short_factor"] = short_factor;
    out["long_factor"] = long_factor;
  }
  return out;
}

DecoderShape DecoderShape::llama_3_2_1b() {
  DecoderShape s;
  s.vocab = 128256;
  s.hidden = 2048;
  s.intermediate = 8192;
  s.layers = 16;
  s.heads = 32;
  s.kv_heads = 8;
  s.head_dim = 64;
  s.max_positions = 131072;
  s.norm_eps = 1e-5;
  RopeShape rope;
  rope.type = RopeShape::Type::Llama3;
  rope.theta = 500000.0;
  rope.factor = 32.0;
  rope.low_freq_factor = 1.0;
  rope.high_freq_factor = 4.0;
  rope.original_max_positions = 8192;
  s.ropes = {rope};
  s.tie_word_embeddings = true;
  return s;
}

LayerAttention DecoderShape::attention_of(std::int64_t layer) const {
  if (layer_attention.empty()) return {};
  return layer_attention.at(static_cast<std::size_t>(layer));
}

std::int64_t DecoderShape::rotary_dim(int rope) const {
  // HF: int(head_dim * partial_rotary_factor), truncated.
  return static_cast<std::int64_t>(static_cast<double>(head_dim) * ropes.at(static_cast<std::size_t>(rope)).partial_rotary_factor);
}

std::int64_t DecoderShape::norms_per_layer() const { return placement == NormPlacement::Sandwich ? 4 : 2; }

bool DecoderShape::sparse_layer(std::int64_t layer) const {
  if (moe.experts == 0) return false;
  return moe.sparse.empty() || moe.sparse.at(static_cast<std::size_t>(layer));
}

namespace {

// A sparse layer's MoE parameters when a token meets `experts` of them: the router, the
// experts (gated MLPs, with their biases), the shared expert and its gate.
void add_moe_parameters(const DecoderShape& s, std::int64_t experts, CheckedCount& count) {
  const MoeShape& moe = s.moe;
  count.add(moe.experts, s.hidden).add(moe.router_bias ? moe.experts : 0);
  count.add(experts, 3 * s.hidden, moe.expert_intermediate);
  if (moe.expert_bias) count.add(experts, 2 * moe.expert_intermediate + s.hidden);
  if (moe.shared_intermediate > 0) count.add(3 * s.hidden, moe.shared_intermediate).add(moe.shared_expert_gate ? s.hidden : 0);
}

// 0 on overflow (checked_parameters refuses it first).
std::int64_t moe_parameters(const DecoderShape& s, std::int64_t experts) {
  CheckedCount count;
  add_moe_parameters(s, experts, count);
  return count.overflow() ? 0 : count.total();
}

// One layer's attention: q, k, v, o (fused or not: the same rows), their biases, q/k norms,
// sinks; or multi-head latent attention's projections and latent norms.
void add_attention_parameters(const DecoderShape& s, std::int64_t per_norm, CheckedCount& layer) {
  const std::int64_t c = s.hidden;
  if (s.latent) {
    const LatentAttentionShape& l = *s.latent;
    const std::int64_t bias = s.qkv_bias ? 1 : 0;
    if (l.q_lora_rank > 0) layer.add(c, l.q_lora_rank).add(bias + 1, l.q_lora_rank).add(l.q_lora_rank, s.heads, l.qk_head_dim());
    else layer.add(c, s.heads, l.qk_head_dim());
    layer.add(c + bias, l.kv_lora_rank + l.qk_rope_head_dim).add(l.kv_lora_rank);  // kv_a_proj_with_mqa, kv_a_layernorm
    layer.add(l.kv_lora_rank, s.heads, l.qk_nope_head_dim + l.v_head_dim);          // kv_b_proj
    layer.add(s.heads, l.v_head_dim, c).add(s.o_bias ? c : 0);                      // o_proj
    return;
  }
  std::int64_t q = 0, kv = 0;  // widths of the query and key/value projections
  if (__builtin_mul_overflow(s.heads, s.head_dim, &q) || __builtin_mul_overflow(s.kv_heads, s.head_dim, &kv)) layer.mark_overflow();
  layer.add(c, q).add(2, c, kv).add(q, c);
  if (s.qkv_bias) layer.add(q).add(2, kv);
  if (s.o_bias) layer.add(c);
  if (s.qk_norm == QkNorm::PerHead) layer.add(2, per_norm, s.head_dim);
  if (s.qk_norm == QkNorm::FullWidth) layer.add(per_norm, q).add(per_norm, kv);
  if (s.attention_sinks) layer.add(s.heads);
}

}  // namespace

std::int64_t DecoderShape::active_parameters() const {
  std::int64_t total = parameters();
  for (std::int64_t i = 0; i < layers; ++i)
    if (sparse_layer(i)) total -= moe_parameters(*this, moe.experts) - moe_parameters(*this, moe.top_k);
  return total;
}

std::int64_t DecoderShape::sparse_layers() const {
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < layers; ++i) count += sparse_layer(i) ? 1 : 0;
  return count;
}

std::int64_t DecoderShape::routed_expert_parameters() const {
  return sparse_layers() * (moe_parameters(*this, moe.experts) - moe_parameters(*this, 0));
}

std::optional<std::int64_t> DecoderShape::checked_parameters() const {
  const std::int64_t c = hidden, f = intermediate, v = vocab;
  const std::int64_t per_norm = norm == NormKind::LayerNorm ? 2 : 1;  // weight (and bias)
  CheckedCount layer;
  layer.add(norms_per_layer(), per_norm, c);
  add_attention_parameters(*this, per_norm, layer);
  const std::int64_t matrices = mlp == MlpKind::Plain ? 2 : 3;
  CheckedCount dense_mlp, sparse_mlp;
  dense_mlp.add(matrices, c, f);
  if (mlp_bias) dense_mlp.add(matrices - 1, f).add(c);
  add_moe_parameters(*this, moe.experts, sparse_mlp);
  std::int64_t sparse_layers = 0;
  for (std::int64_t i = 0; i < layers; ++i) sparse_layers += sparse_layer(i) ? 1 : 0;
  layer.times(layers);
  CheckedCount mlps;
  mlps.add(dense_mlp.total(), layers - sparse_layers).add(sparse_mlp.total(), sparse_layers);
  if (dense_mlp.overflow() || sparse_mlp.overflow() || mlps.overflow()) return std::nullopt;
  layer.add(mlps.total());
  CheckedCount total;
  total.add(v, c).add(per_norm, c).add(layer.total());  // embeddings, final norm, layers
  if (!tie_word_embeddings) total.add(v, c);        // the LM head (no bias in any family)
  if (layer.overflow() || total.overflow()) return std::nullopt;
  return total.total();
}

std::int64_t DecoderShape::parameters() const {
  const auto count = checked_parameters();
  if (!count) throw UsageError("a decoder of " + model_type + "'s shape has more than 2^63 parameters: expected a model that fits");
  return *count;
}

nlohmann::json DecoderShape::describe() const {
  nlohmann::json ropes_json = nlohmann::json::array();
  for (const RopeShape& rope : ropes) ropes_json.push_back(rope.describe());
  nlohmann::json layers_json = nlohmann::json::array();
  for (std::int64_t i = 0; i < layers && !layer_attention.empty(); ++i) {
    const LayerAttention a = attention_of(i);
    layers_json.push_back({{"window", a.window ? nlohmann::json(*a.window) : nlohmann::json(nullptr)},
                           {"rope", a.rope < 0 ? nlohmann::json(nullptr) : nlohmann::json(a.rope)}});
  }
  nlohmann::json moe_json = nullptr;
  if (moe.experts > 0) {
    nlohmann::json sparse_layers = nlohmann::json::array();
    for (std::int64_t i = 0; i < layers; ++i)
      if (sparse_layer(i)) sparse_layers.push_back(i);
    static const char* const kRouter[] = {
        "softmax over every expert in fp32, then the top k",
        "the top k logits, then a softmax over them",
        "sigmoid scores; the top k of score + e_score_correction_bias within the best groups; weights the scores"};
    moe_json = {{"experts", moe.experts},
                {"top_k", moe.top_k},
                {"expert_intermediate_size", moe.expert_intermediate},
                {"router", kRouter[static_cast<int>(moe.router)]},
                {"router_bias", moe.router_bias},
                {"groups", moe.groups},
                {"topk_groups", moe.topk_groups},
                {"routed_scaling_factor", moe.routed_scaling},
                {"renormalize_top_k", moe.renormalize},
                {"experts_layout", moe.layout == MoeShape::Experts::Stacked ? "stacked 3-D (gate/up interleaved)" : "one MLP each"},
                {"expert_bias", moe.expert_bias},
                {"swiglu_limit", optional_json(moe.swiglu_limit)},
                {"shared_expert_intermediate_size", moe.shared_intermediate},
                {"shared_expert_gate", moe.shared_intermediate > 0 && moe.shared_expert_gate},
                {"sparse_layers", sparse_layers},
                {"loss", moe.aux_loss_coef ? "cross-entropy + " + nlohmann::json(*moe.aux_loss_coef).dump() +
                                                 " x the load-balancing loss (output_router_logits)"
                                           : "cross-entropy (no load-balancing loss)"},
                {"experts_computed_as", "torch::_grouped_mm over every expert's tokens where LibTorch fuses it (CUDA "
                                        "sm90/sm100, bf16), a loop of one GEMM per expert elsewhere (dropless; the row's "
                                        "moe.experts_computed_as says which ran)"},
                {"active_parameters", active_parameters()}};
  }
  nlohmann::json latent_json = nullptr;
  if (latent)
    latent_json = {{"q_lora_rank", latent->q_lora_rank > 0 ? nlohmann::json(latent->q_lora_rank) : nlohmann::json(nullptr)},
                   {"kv_lora_rank", latent->kv_lora_rank},
                   {"qk_nope_head_dim", latent->qk_nope_head_dim},
                   {"qk_rope_head_dim", latent->qk_rope_head_dim},
                   {"v_head_dim", latent->v_head_dim}};
  static const char* const kQkv[] = {"separate", "fused (q, k, v blocks)", "fused (per head)"};
  static const char* const kMlp[] = {"gated", "gated (fused gate_up)", "plain"};
  static const char* const kQkNorm[] = {"none", "per head", "full width"};
  return {{"family", "decoder"},
          {"model_type", model_type},
          {"vocab_size", vocab},
          {"hidden_size", hidden},
          {"intermediate_size", intermediate},
          {"num_hidden_layers", layers},
          {"num_attention_heads", heads},
          {"num_key_value_heads", kv_heads},
          {"head_dim", head_dim},
          {"max_position_embeddings", max_positions},
          {"norm", norm_name(norm)},
          {"norm_eps", norm_eps},
          {"norm_placement", placement_name(placement)},
          {"parallel_residual", parallel_residual},
          {"qk_norm", kQkNorm[static_cast<int>(qk_norm)]},
          {"qkv", kQkv[static_cast<int>(qkv_layout)]},
          {"mlp", kMlp[static_cast<int>(mlp)]},
          {"activation", activation_name(activation)},
          {"bias", {{"qkv", qkv_bias}, {"o", o_bias}, {"mlp", mlp_bias}}},
          {"attention_scale", optional_json(attention_scale)},
          {"attention_softcap", optional_json(attention_softcap)},
          {"embedding_scale", embedding_scale},
          {"residual_multiplier", residual_multiplier},
          {"logits_divisor", logits_divisor},
          {"final_softcap", optional_json(final_softcap)},
          {"ropes", ropes_json},
          {"layers", layers_json},
          {"tie_word_embeddings", tie_word_embeddings},
          {"pad_token_id", pad_token_id ? nlohmann::json(*pad_token_id) : nlohmann::json()},
          {"attention", latent ? "multi-head latent" : "grouped-query"},
          {"latent_attention", latent_json},
          {"attention_sinks", attention_sinks},
          {"rope_interleave", rope_interleave},
          {"moe", moe_json},
          {"parameters", parameters()}};
}

}  // namespace gpubench
