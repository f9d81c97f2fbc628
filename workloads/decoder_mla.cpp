#include "workloads/decoder_mla.h"

#include <cmath>

#include "workloads/decoder_rope.h"
#include "workloads/fp8_linear.h"

namespace gpubench {

void DecoderLatentAttentionImpl::reset() {
  const DecoderShape& s = shape;
  const LatentAttentionShape& l = *s.latent;
  // attention_bias puts biases on q_a_proj, kv_a_proj_with_mqa and o_proj, as HF's.
  if (l.q_lora_rank > 0) {
    q_a_proj = register_module("q_a_proj", FamilyLinear(s.hidden, l.q_lora_rank, s.qkv_bias));
    q_a_layernorm = register_module("q_a_layernorm", DecoderNorm(NormKind::Rms, l.q_lora_rank, l.norm_eps));
    q_b_proj = register_module("q_b_proj", FamilyLinear(l.q_lora_rank, s.heads * l.qk_head_dim(), false));
  } else {
    q_proj = register_module("q_proj", FamilyLinear(s.hidden, s.heads * l.qk_head_dim(), false));
  }
  kv_a_proj_with_mqa =
      register_module("kv_a_proj_with_mqa", FamilyLinear(s.hidden, l.kv_lora_rank + l.qk_rope_head_dim, s.qkv_bias));
  kv_a_layernorm = register_module("kv_a_layernorm", DecoderNorm(NormKind::Rms, l.kv_lora_rank, l.norm_eps));
  kv_b_proj = register_module("kv_b_proj", FamilyLinear(l.kv_lora_rank, s.heads * (l.qk_nope_head_dim + l.v_head_dim), false));
  o_proj = register_module("o_proj", FamilyLinear(s.heads * l.v_head_dim, s.hidden, s.o_bias));
}

torch::Tensor DecoderLatentAttentionImpl::rotate(const torch::Tensor& x, const AttentionInputs& inputs) const {
  if (!inputs.cos.defined()) return x;
  return shape.rope_interleave ? apply_rope_interleaved(x, inputs.cos, inputs.sin) : apply_rope(x, inputs.cos, inputs.sin);
}

torch::Tensor DecoderLatentAttentionImpl::forward(const torch::Tensor& x, const AttentionInputs& inputs) {
  const LatentAttentionShape& l = *shape.latent;
  const auto batch = x.size(0), tokens = x.size(1), heads = shape.heads;
  const auto q_states = l.q_lora_rank > 0
                            ? apply_linear(q_b_proj, q_a_layernorm(apply_linear(q_a_proj, x, fp8)), fp8)
                            : apply_linear(q_proj, x, fp8);
  const auto q = q_states.view({batch, tokens, heads, l.qk_head_dim()}).transpose(1, 2);
  const auto q_pass = q.narrow(-1, 0, l.qk_nope_head_dim);
  const auto q_rot = rotate(q.narrow(-1, l.qk_nope_head_dim, l.qk_rope_head_dim), inputs);
  const auto compressed = apply_linear(kv_a_proj_with_mqa, x, fp8);
  const auto latent = kv_a_layernorm(compressed.narrow(-1, 0, l.kv_lora_rank));
  // The one RoPE'd key head [B, 1, T, rope], shared by every head.
  const auto k_rot = rotate(compressed.narrow(-1, l.kv_lora_rank, l.qk_rope_head_dim).view({batch, 1, tokens, l.qk_rope_head_dim}),
                            inputs);
  const auto kv = apply_linear(kv_b_proj, latent, fp8)
                      .view({batch, tokens, heads, l.qk_nope_head_dim + l.v_head_dim})
                      .transpose(1, 2);
  const auto k_nope = kv.narrow(-1, 0, l.qk_nope_head_dim);
  const auto value = kv.narrow(-1, l.qk_nope_head_dim, l.v_head_dim);
  const auto query = torch::cat({q_pass, q_rot}, -1);
  const auto key = torch::cat({k_nope, k_rot.expand({batch, heads, tokens, l.qk_rope_head_dim})}, -1);
  const double scale = shape.attention_scale.value_or(1.0 / std::sqrt(static_cast<double>(l.qk_head_dim())));
  const std::optional<torch::Tensor> mask = inputs.mask.defined() ? std::optional<torch::Tensor>(inputs.mask) : std::nullopt;
  const auto y = at::scaled_dot_product_attention(query, key, value, mask, /*dropout_p=*/0.0,
                                                  /*is_causal=*/!inputs.mask.defined(), scale);
  return apply_linear(o_proj, y.transpose(1, 2).reshape({batch, tokens, heads * l.v_head_dim}), fp8);
}

}  // namespace gpubench
