#include "workloads/llama.h"

#include <cmath>

#include "workloads/fp8_linear.h"

namespace gpubench {
namespace {

// HF's rotate_half: the second half of the channels, negated, before the first.
torch::Tensor rotate_half(const torch::Tensor& x) {
  const auto half = x.size(-1) / 2;
  return torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

}  // namespace

torch::Tensor RopeShape::inverse_frequencies(std::int64_t head_dim) const {
  // The same ops in the same order as transformers 5.17 (modeling_rope_utils.py), so the
  // frequencies are its bits: base ** (arange(0, d, 2) / d), then its reciprocal.
  const auto exponents = torch::arange(0, head_dim, 2, torch::kInt64).to(torch::kFloat32) / static_cast<double>(head_dim);
  const auto inv_freq = torch::pow(theta, exponents).reciprocal();
  if (type != "llama3") return inv_freq;
  const double old_context = static_cast<double>(original_max_positions);
  const double low_freq_wavelen = old_context / low_freq_factor, high_freq_wavelen = old_context / high_freq_factor;
  const auto wavelen = inv_freq.reciprocal() * (2 * M_PI);
  auto scaled = torch::where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq);
  const auto smooth = (wavelen.reciprocal() * old_context - low_freq_factor) / (high_freq_factor - low_freq_factor);
  const auto smoothed = (1 - smooth) * scaled / factor + smooth * scaled;
  const auto medium = torch::logical_and(wavelen >= high_freq_wavelen, wavelen <= low_freq_wavelen);
  return torch::where(medium, smoothed, scaled);
}

LlamaShape LlamaShape::llama_3_2_1b() {
  LlamaShape s;
  s.vocab = 128256;
  s.hidden = 2048;
  s.intermediate = 8192;
  s.layers = 16;
  s.heads = 32;
  s.kv_heads = 8;
  s.head_dim = 64;
  s.max_positions = 131072;
  s.rms_norm_eps = 1e-5;
  s.rope = {"llama3", 500000.0, 32.0, 1.0, 4.0, 8192};
  s.tie_word_embeddings = true;
  return s;
}

std::int64_t LlamaShape::parameters() const {
  const std::int64_t q = heads * head_dim, kv = kv_heads * head_dim;
  const std::int64_t attention = hidden * q + 2 * hidden * kv + q * hidden + (qkv_bias ? q + 2 * kv : 0) + (o_bias ? hidden : 0);
  const std::int64_t mlp = 3 * hidden * intermediate + (mlp_bias ? 2 * intermediate + hidden : 0);
  const std::int64_t layer = attention + mlp + 2 * hidden;
  return vocab * hidden * (tie_word_embeddings ? 1 : 2) + layers * layer + hidden;
}

nlohmann::json LlamaShape::describe() const {
  nlohmann::json rope_json = {{"type", rope.type}, {"theta", rope.theta}};
  if (rope.type == "llama3")
    rope_json.update({{"factor", rope.factor},
                      {"low_freq_factor", rope.low_freq_factor},
                      {"high_freq_factor", rope.high_freq_factor},
                      {"original_max_position_embeddings", rope.original_max_positions}});
  return {{"family", "llama"},
          {"model_type", model_type},
          {"vocab_size", vocab},
          {"hidden_size", hidden},
          {"intermediate_size", intermediate},
          {"num_hidden_layers", layers},
          {"num_attention_heads", heads},
          {"num_key_value_heads", kv_heads},
          {"head_dim", head_dim},
          {"rms_norm_eps", rms_norm_eps},
          {"rope", rope_json},
          {"max_position_embeddings", max_positions},
          {"tie_word_embeddings", tie_word_embeddings},
          {"qkv_bias", qkv_bias},
          {"o_bias", o_bias},
          {"mlp_bias", mlp_bias},
          {"pad_token_id", pad_token_id ? nlohmann::json(*pad_token_id) : nlohmann::json()},
          {"parameters", parameters()}};
}

void RmsNormImpl::reset() { weight = register_parameter("weight", torch::ones({size})); }

torch::Tensor RmsNormImpl::forward(const torch::Tensor& x) {
  const auto x32 = x.to(torch::kFloat32);
  const auto normed = x32 * torch::rsqrt(x32.pow(2).mean(-1, /*keepdim=*/true) + eps);
  return weight * normed.to(x.scalar_type());
}

void LlamaAttentionImpl::reset() {
  const std::int64_t q = shape.heads * shape.head_dim, kv = shape.kv_heads * shape.head_dim;
  q_proj = register_module("q_proj", FamilyLinear(shape.hidden, q, shape.qkv_bias));
  k_proj = register_module("k_proj", FamilyLinear(shape.hidden, kv, shape.qkv_bias));
  v_proj = register_module("v_proj", FamilyLinear(shape.hidden, kv, shape.qkv_bias));
  o_proj = register_module("o_proj", FamilyLinear(q, shape.hidden, shape.o_bias));
}

torch::Tensor LlamaAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin) {
  const auto batch = x.size(0), tokens = x.size(1), d = shape.head_dim;
  const auto heads_of = [&](const torch::Tensor& t, std::int64_t heads) { return t.view({batch, tokens, heads, d}).transpose(1, 2); };
  const auto q = heads_of(apply_linear(q_proj, x, fp8), shape.heads);
  const auto k = heads_of(apply_linear(k_proj, x, fp8), shape.kv_heads);
  const auto v = heads_of(apply_linear(v_proj, x, fp8), shape.kv_heads);
  // Query head h reads key/value head h / (heads / kv_heads): SDPA's enable_gqa, HF's repeat_kv.
  const auto y = at::scaled_dot_product_attention(q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin, v,
                                                  /*attn_mask=*/{}, /*dropout_p=*/0.0, /*is_causal=*/true,
                                                  /*scale=*/std::nullopt, /*enable_gqa=*/shape.kv_heads != shape.heads);
  return apply_linear(o_proj, y.transpose(1, 2).reshape({batch, tokens, shape.heads * d}), fp8);
}

void LlamaMlpImpl::reset() {
  gate_proj = register_module("gate_proj", FamilyLinear(shape.hidden, shape.intermediate, shape.mlp_bias));
  up_proj = register_module("up_proj", FamilyLinear(shape.hidden, shape.intermediate, shape.mlp_bias));
  down_proj = register_module("down_proj", FamilyLinear(shape.intermediate, shape.hidden, shape.mlp_bias));
}

torch::Tensor LlamaMlpImpl::forward(const torch::Tensor& x) {
  return apply_linear(down_proj, torch::silu(apply_linear(gate_proj, x, fp8)) * apply_linear(up_proj, x, fp8), fp8);
}

void LlamaLayerImpl::reset() {
  input_layernorm = register_module("input_layernorm", RmsNorm(shape.hidden, shape.rms_norm_eps));
  self_attn = register_module("self_attn", LlamaAttention(shape));
  post_attention_layernorm = register_module("post_attention_layernorm", RmsNorm(shape.hidden, shape.rms_norm_eps));
  mlp = register_module("mlp", LlamaMlp(shape));
}

torch::Tensor LlamaLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin) {
  const auto h = x + self_attn(input_layernorm(x), cos, sin);
  return h + mlp(post_attention_layernorm(h));
}

void LlamaTrunkImpl::reset() {
  embed_tokens = register_module("embed_tokens", FamilyEmbedding(shape.vocab, shape.hidden, shape.pad_token_id));
  layers = register_module("layers", torch::nn::ModuleList());
  for (std::int64_t i = 0; i < shape.layers; ++i) layers->push_back(LlamaLayer(shape));
  norm = register_module("norm", RmsNorm(shape.hidden, shape.rms_norm_eps));
}

void LlamaImpl::reset() {
  model = register_module("model", LlamaTrunk(shape));
  if (!shape.tie_word_embeddings) lm_head = register_module("lm_head", FamilyLinear(shape.hidden, shape.vocab, false));
}

void LlamaImpl::init_weights() {
  torch::NoGradGuard no_grad;
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* l = module->as<FamilyLinear>()) {
      torch::nn::init::normal_(l->weight, 0.0, 0.02);
      if (l->bias.defined()) torch::nn::init::zeros_(l->bias);
    }
    if (auto* e = module->as<FamilyEmbedding>()) torch::nn::init::normal_(e->weight, 0.0, 0.02);
    if (auto* n = module->as<RmsNorm>()) torch::nn::init::ones_(n->weight);
  }
  if (shape.pad_token_id) model->embed_tokens->weight[*shape.pad_token_id].zero_();
}

torch::Tensor LlamaImpl::forward(const torch::Tensor& tokens) {
  // RoPE computes any position, as HF does past max_position_embeddings: no length check.
  const auto length = tokens.size(1);
  auto x = model->embed_tokens(tokens);
  // cos and sin of every position's angles, in fp32 whatever autocast does (as HF).
  const auto positions = torch::arange(length, torch::TensorOptions().dtype(torch::kFloat32).device(tokens.device()));
  const auto angles = positions.unsqueeze(1) * rotary_inverse_frequencies(tokens.device()).unsqueeze(0);
  const auto both = torch::cat({angles, angles}, -1);
  const auto cos = both.cos(), sin = both.sin();
  for (std::size_t index = 0; index < model->layers->size(); ++index) {
    LlamaLayer layer(model->layers->ptr<LlamaLayerImpl>(index));
    x = segments.run(index, [layer, cos, sin](const torch::Tensor& in) mutable { return layer->forward(in, cos, sin); }, x);
  }
  x = model->norm(x);
  return shape.tie_word_embeddings ? torch::linear(x, model->embed_tokens->weight) : lm_head(x);
}

const torch::Tensor& LlamaImpl::rotary_inverse_frequencies(torch::Device device) {
  if (!inverse_frequencies_.defined())
    inverse_frequencies_ = shape.rope.inverse_frequencies(shape.head_dim).to(device);
  else if (inverse_frequencies_.device() != device)  // a replica (clone) on another device: its own copy
    inverse_frequencies_ = inverse_frequencies_.to(device);
  return inverse_frequencies_;
}

void LlamaImpl::use_fp8_linears() {
  for (const auto& module : *model->layers) {
    auto* layer = module->as<LlamaLayerImpl>();
    layer->self_attn->fp8 = true;
    layer->mlp->fp8 = true;
  }
}

Model make_llama_model(const LlamaShape& shape, const ModelTechniques& techniques, const WeightLoader& load) {
  Llama model = filled_on(Llama(shape), techniques.device, load);
  model->segments.checkpoint = techniques.checkpoint;
  if (techniques.fp8_linears) model->use_fp8_linears();
  model->rotary_inverse_frequencies(model->model->norm->weight.device());
  Model wrapped = wrap_model(model);
  declare_units(wrapped, model, model->model->layers->children());
  return wrapped;
}

}  // namespace gpubench
