#include "workloads/decoder_rope.h"

#include <algorithm>
#include <cmath>

namespace gpubench {
namespace {

// HF's rotate_half: the second half of the channels, negated, before the first.
torch::Tensor rotate_half(const torch::Tensor& x) {
  const auto half = x.size(-1) / 2;
  return torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

// theta ** (arange(0, d, 2) / d) in fp32, as HF (an int64 arange cast to float).
torch::Tensor position_frequencies(double theta, std::int64_t dim) {
  const auto exponents = torch::arange(0, dim, 2, torch::kInt64).to(torch::kFloat32) / static_cast<double>(dim);
  return torch::pow(theta, exponents);
}

torch::Tensor llama3_frequencies(const RopeShape& rope, const torch::Tensor& inv_freq) {
  const double old_context = static_cast<double>(rope.original_max_positions);
  const double low_freq_wavelen = old_context / rope.low_freq_factor, high_freq_wavelen = old_context / rope.high_freq_factor;
  const auto wavelen = inv_freq.reciprocal() * (2 * M_PI);
  auto scaled = torch::where(wavelen > low_freq_wavelen, inv_freq / rope.factor, inv_freq);
  const auto smooth = (wavelen.reciprocal() * old_context - rope.low_freq_factor) / (rope.high_freq_factor - rope.low_freq_factor);
  const auto smoothed = (1 - smooth) * scaled / rope.factor + smooth * scaled;
  const auto medium = torch::logical_and(wavelen >= high_freq_wavelen, wavelen <= low_freq_wavelen);
  return torch::where(medium, smoothed, scaled);
}

double yarn_mscale(double scale, double mscale = 1.0) { return scale <= 1.0 ? 1.0 : 0.1 * mscale * std::log(scale) + 1.0; }

RopeFrequencies yarn_frequencies(const RopeShape& rope, std::int64_t dim) {
  RopeFrequencies out;
  if (rope.attention_factor) {
    out.attention_factor = *rope.attention_factor;
  } else if (rope.mscale && rope.mscale_all_dim && *rope.mscale != 0.0 && *rope.mscale_all_dim != 0.0) {
    out.attention_factor = yarn_mscale(rope.factor, *rope.mscale) / yarn_mscale(rope.factor, *rope.mscale_all_dim);
  } else {
    out.attention_factor = yarn_mscale(rope.factor);
  }
  // The channels whose wavelength fits the original context between beta_fast and
  // beta_slow rotations ramp from extrapolated to interpolated frequencies.
  const auto correction_dim = [&](double rotations) {
    return (static_cast<double>(dim) * std::log(static_cast<double>(rope.original_max_positions) / (rotations * 2 * M_PI))) /
           (2 * std::log(rope.theta));
  };
  double low = correction_dim(rope.beta_fast), high = correction_dim(rope.beta_slow);
  if (rope.truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  low = std::max(low, 0.0);
  high = std::min(high, static_cast<double>(dim - 1));
  if (low == high) high += 0.001;
  const auto pos_freqs = position_frequencies(rope.theta, dim);
  const auto extrapolation = 1.0 / pos_freqs;
  const auto interpolation = 1.0 / (rope.factor * pos_freqs);
  const auto ramp = torch::clamp((torch::arange(dim / 2, torch::kFloat32) - low) / (high - low), 0, 1);
  const auto extrapolation_factor = 1 - ramp;
  out.inverse = interpolation * (1 - extrapolation_factor) + extrapolation * extrapolation_factor;
  return out;
}

RopeFrequencies longrope_frequencies(const RopeShape& rope, std::int64_t dim, bool long_context) {
  RopeFrequencies out;
  const double factor = rope.factor;
  if (rope.attention_factor)
    out.attention_factor = *rope.attention_factor;
  else
    out.attention_factor =
        factor <= 1.0 ? 1.0 : std::sqrt(1 + std::log(factor) / std::log(static_cast<double>(rope.original_max_positions)));
  const std::vector<double>& chosen = long_context ? rope.long_factor : rope.short_factor;
  const auto ext_factors = torch::tensor(chosen, torch::kFloat64).to(torch::kFloat32);
  const auto shape = torch::arange(0, dim, 2, torch::kInt64).to(torch::kFloat32) / static_cast<double>(dim);
  out.inverse = 1.0 / (ext_factors * torch::pow(rope.theta, shape));
  return out;
}

}  // namespace

RopeFrequencies rope_frequencies(const RopeShape& rope, std::int64_t dim, bool long_context) {
  switch (rope.type) {
    case RopeShape::Type::Yarn: return yarn_frequencies(rope, dim);
    case RopeShape::Type::LongRope: return longrope_frequencies(rope, dim, long_context);
    default: break;
  }
  // The same ops in the same order as transformers, so the frequencies are its bits: base **
  // (arange(0, d, 2) / d), then its reciprocal.
  RopeFrequencies out;
  out.inverse = position_frequencies(rope.theta, dim).reciprocal();
  if (rope.type == RopeShape::Type::Linear) out.inverse = out.inverse / rope.factor;
  if (rope.type == RopeShape::Type::Llama3) out.inverse = llama3_frequencies(rope, out.inverse);
  return out;
}

bool rope_long_context(const RopeShape& rope, std::int64_t tokens) {
  return rope.type == RopeShape::Type::LongRope && tokens > rope.original_max_positions;
}

std::pair<torch::Tensor, torch::Tensor> rope_tables(const torch::Tensor& inverse, double attention_factor,
                                                    std::int64_t tokens) {
  const auto positions = torch::arange(tokens, torch::TensorOptions().dtype(torch::kFloat32).device(inverse.device()));
  const auto angles = positions.unsqueeze(1) * inverse.unsqueeze(0);
  const auto both = torch::cat({angles, angles}, -1);
  if (attention_factor == 1.0) return {both.cos(), both.sin()};
  return {both.cos() * attention_factor, both.sin() * attention_factor};
}

torch::Tensor apply_rope(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin) {
  const auto rotary = cos.size(-1);
  if (rotary == x.size(-1)) return x * cos + rotate_half(x) * sin;
  const auto rotated = x.narrow(-1, 0, rotary);
  return torch::cat({rotated * cos + rotate_half(rotated) * sin, x.narrow(-1, rotary, x.size(-1) - rotary)}, -1);
}

torch::Tensor apply_rope_interleaved(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin) {
  using torch::indexing::None;
  using torch::indexing::Slice;
  // cos and sin are [angles, angles]: the first half holds each pair's angle.
  const auto half = cos.size(-1) / 2;
  const auto c = cos.narrow(-1, 0, half), s = sin.narrow(-1, 0, half);
  const auto even = x.index({"...", Slice(0, None, 2)}), odd = x.index({"...", Slice(1, None, 2)});
  return torch::cat({even * c - odd * s, odd * c + even * s}, -1);
}

}  // namespace gpubench
