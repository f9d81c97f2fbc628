#pragma once
// Multi-head latent attention (DeepSeek-V2/V3) as transformers 5.17's DeepseekV3Attention
// computes it, the one decoder's attention where the shape has a LatentAttentionShape:
// queries straight from the input (q_proj) or through a low-rank bottleneck and its RMSNorm
// (q_a_proj, q_a_layernorm, q_b_proj); keys and values expanded per head from a normed
// latent of kv_lora_rank (kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj), each head's key
// [its nope channels | one RoPE'd key head shared by all]; fused attention (SDPA) scaled by
// the shape's attention_scale (YaRN's mscale squared folded in by the reader), o_proj.
#include <torch/torch.h>

#include "workloads/decoder.h"

namespace gpubench {

struct DecoderLatentAttentionImpl : torch::nn::Cloneable<DecoderLatentAttentionImpl> {
  explicit DecoderLatentAttentionImpl(DecoderShape shape) : shape(std::move(shape)) { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x, const AttentionInputs& inputs);
  DecoderShape shape;
  bool fp8 = false;
  FamilyLinear q_proj{nullptr}, q_a_proj{nullptr}, q_b_proj{nullptr}, kv_a_proj_with_mqa{nullptr}, kv_b_proj{nullptr},
      o_proj{nullptr};
  DecoderNorm q_a_layernorm{nullptr}, kv_a_layernorm{nullptr};

 private:
  torch::Tensor rotate(const torch::Tensor& x, const AttentionInputs& inputs) const;
};
TORCH_MODULE(DecoderLatentAttention);

}  // namespace gpubench
