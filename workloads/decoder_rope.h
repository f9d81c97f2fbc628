#pragma once
// Rotary position embeddings as transformers 5.17 computes them (modeling_rope_utils.py):
// the inverse frequencies of each RoPE type, in the same fp32 ops and order so that they are
// its bits, the attention factor that scales cos and sin (YaRN, LongRoPE), and the rotation
// of a head's first rotary_dim channels (partial rotary: the rest pass through).
#include <cstdint>

#include <torch/torch.h>

#include "workloads/formats/decoder_shape.h"

namespace gpubench {

struct RopeFrequencies {
  torch::Tensor inverse;          // fp32 [rotary_dim / 2], on the CPU
  double attention_factor = 1.0;  // cos and sin are multiplied by it
};

// `long_context`: LongRoPE's long factors (HF picks them when the sequence is longer than
// original_max_position_embeddings); ignored by the other types.
RopeFrequencies rope_frequencies(const RopeShape& rope, std::int64_t rotary_dim, bool long_context = false);

// Whether a sequence of `tokens` uses LongRoPE's long factors (HF's dynamic update: the
// largest position + 1 over the original context).
bool rope_long_context(const RopeShape& rope, std::int64_t tokens);

// cos and sin [T, rotary_dim] of positions 0..T-1 (fp32, as HF whatever autocast does), each
// times the attention factor.
std::pair<torch::Tensor, torch::Tensor> rope_tables(const torch::Tensor& inverse, double attention_factor,
                                                    std::int64_t tokens);

// x [B, H, T, head_dim]: q * cos + rotate_half(q) * sin on the first cos.size(-1) channels
// (HF's half-split pairs), the rest unchanged.
torch::Tensor apply_rope(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin);

// x [B, H, T, rotary_dim] with its channels in adjacent pairs (x0, x1), (x2, x3), ... each
// rotated by one frequency, out as [x_even * cos - x_odd * sin | x_odd * cos + x_even * sin]
// (DeepSeek's rope_interleave: HF's apply_rotary_pos_emb_interleave, the same ops).
torch::Tensor apply_rope_interleaved(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin);

}  // namespace gpubench
