#include "workloads/family_weights.h"

#include <map>
#include <set>

#include "workloads/formats/excerpt.h"
#include "workloads/formats/safetensors_header.h"

namespace gpubench {
namespace {

void add_linear(ExpectedWeights& out, const std::string& name, std::int64_t rows, std::int64_t columns, bool bias) {
  out.push_back({name + ".weight", {rows, columns}});
  if (bias) out.push_back({name + ".bias", {rows}});
}

// Multi-head latent attention's projections and latent norms (workloads/decoder_mla.h).
void latent_attention_weights(const DecoderShape& s, const std::string& attention, ExpectedWeights& out) {
  const LatentAttentionShape& l = *s.latent;
  const std::int64_t c = s.hidden, h = s.heads;
  if (l.q_lora_rank > 0) {
    add_linear(out, attention + "q_a_proj", l.q_lora_rank, c, s.qkv_bias);
    out.push_back({attention + "q_a_layernorm.weight", {l.q_lora_rank}});
    add_linear(out, attention + "q_b_proj", h * l.qk_head_dim(), l.q_lora_rank, false);
  } else {
    add_linear(out, attention + "q_proj", h * l.qk_head_dim(), c, false);
  }
  add_linear(out, attention + "kv_a_proj_with_mqa", l.kv_lora_rank + l.qk_rope_head_dim, c, s.qkv_bias);
  out.push_back({attention + "kv_a_layernorm.weight", {l.kv_lora_rank}});
  add_linear(out, attention + "kv_b_proj", h * (l.qk_nope_head_dim + l.v_head_dim), l.kv_lora_rank, false);
  add_linear(out, attention + "o_proj", c, h * l.v_head_dim, s.o_bias);
}

// A sparse layer's router (its bias, DeepSeek's correction buffer), experts (one gated MLP
// each, or stacked with their biases) and shared expert (with its gate).
void moe_weights(const DecoderShape& s, const std::string& mlp, ExpectedWeights& out) {
  const MoeShape& moe = s.moe;
  const std::int64_t c = s.hidden, width = moe.expert_intermediate;
  const auto gated = [&](const std::string& prefix, std::int64_t w) {
    for (const char* name : {"gate_proj", "up_proj"}) add_linear(out, prefix + name, w, c, false);
    add_linear(out, prefix + "down_proj", c, w, false);
  };
  add_linear(out, mlp + "gate", moe.experts, c, moe.router_bias);
  if (moe.score_correction_bias) out.push_back({mlp + "gate.e_score_correction_bias", {moe.experts}});
  if (moe.layout == MoeShape::Experts::Stacked) {
    out.push_back({mlp + "experts.gate_up_proj", {moe.experts, c, 2 * width}});
    if (moe.expert_bias) out.push_back({mlp + "experts.gate_up_proj_bias", {moe.experts, 2 * width}});
    out.push_back({mlp + "experts.down_proj", {moe.experts, width, c}});
    if (moe.expert_bias) out.push_back({mlp + "experts.down_proj_bias", {moe.experts, c}});
  } else {
    for (std::int64_t e = 0; e < moe.experts; ++e) gated(mlp + "experts." + std::to_string(e) + ".", width);
  }
  if (moe.shared_intermediate > 0) {
    gated(mlp + "shared_expert.", moe.shared_intermediate);
    if (moe.shared_expert_gate) add_linear(out, mlp + "shared_expert_gate", 1, c, false);
  }
}

}  // namespace

ExpectedWeights decoder_expected_weights(const DecoderShape& s) {
  const std::int64_t q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim, c = s.hidden, f = s.intermediate;
  ExpectedWeights out = {{"model.embed_tokens.weight", {s.vocab, c}}};
  const auto norm = [&](const std::string& name, std::int64_t size) {
    out.push_back({name + ".weight", {size}});
    if (s.norm == NormKind::LayerNorm) out.push_back({name + ".bias", {size}});
  };
  const auto linear = [&](const std::string& name, std::int64_t rows, std::int64_t columns, bool bias) {
    add_linear(out, name, rows, columns, bias);
  };
  for (std::int64_t i = 0; i < s.layers; ++i) {
    const std::string layer = "model.layers." + std::to_string(i) + ".";
    // The norms' names by placement, as DecoderLayerImpl registers them.
    if (s.placement != NormPlacement::Post) norm(layer + "input_layernorm", c);
    norm(layer + "post_attention_layernorm", c);
    if (s.placement == NormPlacement::Sandwich) norm(layer + "pre_feedforward_layernorm", c);
    if (s.placement != NormPlacement::Pre) norm(layer + "post_feedforward_layernorm", c);
    const std::string attention = layer + "self_attn.";
    if (s.latent) {
      latent_attention_weights(s, attention, out);
    } else if (s.qkv_layout == QkvLayout::Separate) {
      linear(attention + "q_proj", q, c, s.qkv_bias);
      linear(attention + "k_proj", kv, c, s.qkv_bias);
      linear(attention + "v_proj", kv, c, s.qkv_bias);
    } else {
      linear(attention + "qkv_proj", q + 2 * kv, c, s.qkv_bias);
    }
    if (!s.latent) linear(attention + "o_proj", c, q, s.o_bias);
    if (s.qk_norm != QkNorm::None) {
      norm(attention + "q_norm", s.qk_norm == QkNorm::PerHead ? s.head_dim : q);
      norm(attention + "k_norm", s.qk_norm == QkNorm::PerHead ? s.head_dim : kv);
    }
    if (s.attention_sinks) out.push_back({attention + "sinks", {s.heads}});
    const std::string mlp = layer + "mlp.";
    if (s.sparse_layer(i)) {
      moe_weights(s, mlp, out);
      continue;
    }
    if (s.mlp == MlpKind::Gated) linear(mlp + "gate_proj", f, c, s.mlp_bias);
    if (s.mlp == MlpKind::GatedFused) linear(mlp + "gate_up_proj", 2 * f, c, s.mlp_bias);
    else linear(mlp + "up_proj", f, c, s.mlp_bias);
    linear(mlp + "down_proj", c, f, s.mlp_bias);
  }
  norm("model.norm", c);
  if (!s.tie_word_embeddings) out.push_back({"lm_head.weight", {s.vocab, c}});
  return out;
}

ExpectedWeights gpt2_expected_weights(const Gpt2Shape& s) {
  const std::int64_t c = s.embd, f = s.mlp_width();
  ExpectedWeights out = {{"transformer.wte.weight", {s.vocab, c}}, {"transformer.wpe.weight", {s.context, c}}};
  for (std::int64_t i = 0; i < s.layers; ++i) {
    const std::string block = "transformer.h." + std::to_string(i) + ".";
    out.insert(out.end(), {{block + "ln_1.weight", {c}},
                           {block + "ln_1.bias", {c}},
                           {block + "attn.c_attn.weight", {c, 3 * c}},
                           {block + "attn.c_attn.bias", {3 * c}},
                           {block + "attn.c_proj.weight", {c, c}},
                           {block + "attn.c_proj.bias", {c}},
                           {block + "ln_2.weight", {c}},
                           {block + "ln_2.bias", {c}},
                           {block + "mlp.c_fc.weight", {c, f}},
                           {block + "mlp.c_fc.bias", {f}},
                           {block + "mlp.c_proj.weight", {f, c}},
                           {block + "mlp.c_proj.bias", {c}}});
  }
  out.insert(out.end(), {{"transformer.ln_f.weight", {c}}, {"transformer.ln_f.bias", {c}}});
  return out;
}

std::string weights_mismatch(const ExpectedWeights& expected, const std::vector<std::string>& names,
                             const std::function<std::vector<std::int64_t>(const std::string&)>& shape_of,
                             const WeightMapping& mapping) {
  const std::set<std::string> present(names.begin(), names.end());
  std::set<std::string> used;
  std::string problems;
  int listed = 0;
  const auto note = [&](const std::string& problem) {
    if (++listed <= 8) problems += (problems.empty() ? "" : "; ") + problem;
  };
  for (const auto& [ours, shape] : expected) {
    const std::string name = mapping.to_reference(ours).reference_name;
    if (!present.count(name)) {
      note(shown_name(name) + " is missing");
      continue;
    }
    used.insert(name);
    // The file's layout: a transposed (Conv1D) weight is stored as expected, [in, out].
    if (shape_of(name) != shape) note(shown_name(name) + " is " + shape_text(shape_of(name)) + ", expected " + shape_text(shape));
  }
  for (const auto& [name, tied_to] : mapping.tied) used.insert(name);
  for (const auto& name : names)
    if (!used.count(name) && !mapping.ignored(name)) note(shown_name(name) + " is not a tensor of this model");
  if (listed > 8) problems += "; and " + std::to_string(listed - 8) + " more";
  return problems;
}

}  // namespace gpubench
