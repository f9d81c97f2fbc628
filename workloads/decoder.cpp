#include "workloads/decoder.h"

#include <algorithm>
#include <cmath>

#include "core/config/errors.h"
#include "workloads/decoder_mla.h"
#include "workloads/decoder_moe.h"
#include "workloads/decoder_rope.h"
#include "workloads/fp8_linear.h"
#include "workloads/grouped_experts.h"

namespace gpubench {
namespace {

// c * tanh(x / c): Gemma 2's softcap of attention scores and logits.
torch::Tensor softcap(const torch::Tensor& x, double cap) { return torch::tanh(x / cap) * cap; }

// True where query i sees key j: j <= i and, under a window of W keys, j > i - W.
torch::Tensor window_mask(std::int64_t tokens, std::int64_t window, torch::Device device) {
  const auto positions = torch::arange(tokens, torch::TensorOptions().dtype(torch::kInt64).device(device));
  const auto query = positions.unsqueeze(1), key = positions.unsqueeze(0);
  return torch::logical_and(key <= query, key > query - window);
}

}  // namespace

void DecoderNormImpl::reset() {
  weight = register_parameter("weight", torch::ones({size}));
  if (kind == NormKind::LayerNorm) bias = register_parameter("bias", torch::zeros({size}));
}

void DecoderNormImpl::init_weights() {
  torch::NoGradGuard no_grad;
  if (kind == NormKind::RmsOnePlus) weight.zero_();
  else weight.fill_(1.0);
  if (bias.defined()) bias.zero_();
}

torch::Tensor DecoderNormImpl::forward(const torch::Tensor& x) {
  if (kind == NormKind::LayerNorm) return torch::layer_norm(x, {size}, weight, bias, eps);
  const auto x32 = x.to(torch::kFloat32);
  const auto normed = x32 * torch::rsqrt(x32.pow(2).mean(-1, /*keepdim=*/true) + eps);
  switch (kind) {
    case NormKind::RmsWeightFp32: return (weight * normed).to(x.scalar_type());
    case NormKind::RmsOnePlus: return (normed * (1.0 + weight.to(torch::kFloat32))).to(x.scalar_type());
    default: return weight * normed.to(x.scalar_type());
  }
}

void DecoderAttentionImpl::reset() {
  const DecoderShape& s = shape;
  const std::int64_t q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim;
  if (s.qkv_layout == QkvLayout::Separate) {
    q_proj = register_module("q_proj", FamilyLinear(s.hidden, q, s.qkv_bias));
    k_proj = register_module("k_proj", FamilyLinear(s.hidden, kv, s.qkv_bias));
    v_proj = register_module("v_proj", FamilyLinear(s.hidden, kv, s.qkv_bias));
  } else {
    qkv_proj = register_module("qkv_proj", FamilyLinear(s.hidden, q + 2 * kv, s.qkv_bias));
  }
  o_proj = register_module("o_proj", FamilyLinear(q, s.hidden, s.o_bias));
  if (s.qk_norm == QkNorm::PerHead) {
    q_norm = register_module("q_norm", DecoderNorm(s.norm, s.head_dim, s.norm_eps));
    k_norm = register_module("k_norm", DecoderNorm(s.norm, s.head_dim, s.norm_eps));
  } else if (s.qk_norm == QkNorm::FullWidth) {
    q_norm = register_module("q_norm", DecoderNorm(s.norm, q, s.norm_eps));
    k_norm = register_module("k_norm", DecoderNorm(s.norm, kv, s.norm_eps));
  }
  if (s.attention_sinks) sinks = register_parameter("sinks", torch::zeros({s.heads}));
}

// q [B, T, H, d], k and v [B, T, KV, d], before any norm of a head.
std::tuple<torch::Tensor, torch::Tensor, torch::Tensor> DecoderAttentionImpl::project(const torch::Tensor& x) {
  const auto batch = x.size(0), tokens = x.size(1), d = shape.head_dim;
  const std::int64_t q_width = shape.heads * d, kv_width = shape.kv_heads * d;
  torch::Tensor q, k, v;
  if (shape.qkv_layout == QkvLayout::FusedPerHead) {
    // GPT-NeoX: each head's rows are [q_h; k_h; v_h] (its heads and key/value heads are one).
    const auto qkv = apply_linear(qkv_proj, x, fp8).view({batch, tokens, shape.heads, 3 * d}).chunk(3, -1);
    return {qkv[0], qkv[1], qkv[2]};
  }
  if (shape.qkv_layout == QkvLayout::FusedBlocked) {
    const auto qkv = apply_linear(qkv_proj, x, fp8);
    q = qkv.narrow(-1, 0, q_width);
    k = qkv.narrow(-1, q_width, kv_width);
    v = qkv.narrow(-1, q_width + kv_width, kv_width);
  } else {
    q = apply_linear(q_proj, x, fp8);
    k = apply_linear(k_proj, x, fp8);
    v = apply_linear(v_proj, x, fp8);
  }
  if (shape.qk_norm == QkNorm::FullWidth) {  // OLMo 2: over the whole projection
    q = q_norm(q);
    k = k_norm(k);
  }
  return {q.view({batch, tokens, shape.heads, d}), k.view({batch, tokens, shape.kv_heads, d}),
          v.view({batch, tokens, shape.kv_heads, d})};
}

torch::Tensor DecoderAttentionImpl::attend(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                           const torch::Tensor& mask) {
  const double scale = shape.attention_scale.value_or(1.0 / std::sqrt(static_cast<double>(shape.head_dim)));
  if (!shape.attention_softcap && !shape.attention_sinks) {
    // Query head h reads key/value head h / (heads / kv_heads): SDPA's enable_gqa, HF's repeat_kv.
    const std::optional<torch::Tensor> attn_mask = mask.defined() ? std::optional<torch::Tensor>(mask) : std::nullopt;
    return at::scaled_dot_product_attention(q, k, v, attn_mask, /*dropout_p=*/0.0, /*is_causal=*/!mask.defined(), scale,
                                            /*enable_gqa=*/shape.kv_heads != shape.heads);
  }
  // HF's eager attention, the only one that caps or has sinks: scores, cap, mask, softmax.
  const auto groups = shape.heads / shape.kv_heads;
  const auto keys = groups == 1 ? k : k.repeat_interleave(groups, 1);
  const auto values = groups == 1 ? v : v.repeat_interleave(groups, 1);
  auto scores = torch::matmul(q, keys.transpose(2, 3)) * scale;
  if (shape.attention_softcap) scores = softcap(scores, *shape.attention_softcap);
  const auto tokens = q.size(2);
  const auto seen = mask.defined() ? mask : window_mask(tokens, tokens, q.device());
  scores = scores.masked_fill(seen.logical_not(), -std::numeric_limits<double>::infinity());
  if (!shape.attention_sinks) return torch::matmul(torch::softmax(scores, -1, torch::kFloat32).to(q.scalar_type()), values);
  // gpt-oss: each head's sink logit joins every query's softmax and is dropped after it
  // (the row's max taken out first, as HF does); cat promotes 16-bit scores to the sinks' fp32.
  const auto sink_column = sinks.reshape({1, -1, 1, 1}).expand({q.size(0), -1, tokens, 1});
  auto combined = torch::cat({scores, sink_column}, -1);
  combined = combined - std::get<0>(combined.max(-1, /*keepdim=*/true));
  const auto probabilities = torch::softmax(combined, -1, combined.scalar_type()).narrow(-1, 0, keys.size(2));
  return torch::matmul(probabilities.to(values.scalar_type()), values);
}

torch::Tensor DecoderAttentionImpl::forward(const torch::Tensor& x, const AttentionInputs& inputs) {
  const auto batch = x.size(0), tokens = x.size(1);
  auto [q, k, v] = project(x);
  if (shape.qk_norm == QkNorm::PerHead) {  // Qwen3, Gemma 3: each head over head_dim
    q = q_norm(q);
    k = k_norm(k);
  }
  q = q.transpose(1, 2);
  k = k.transpose(1, 2);
  v = v.transpose(1, 2);
  if (inputs.cos.defined()) {
    q = apply_rope(q, inputs.cos, inputs.sin);
    k = apply_rope(k, inputs.cos, inputs.sin);
  }
  const auto y = attend(q, k, v, inputs.mask);
  return apply_linear(o_proj, y.transpose(1, 2).reshape({batch, tokens, shape.heads * shape.head_dim}), fp8);
}

void DecoderMlpImpl::reset() {
  const DecoderShape& s = shape;
  if (s.mlp == MlpKind::Gated) gate_proj = register_module("gate_proj", FamilyLinear(s.hidden, s.intermediate, s.mlp_bias));
  if (s.mlp == MlpKind::GatedFused)
    gate_up_proj = register_module("gate_up_proj", FamilyLinear(s.hidden, 2 * s.intermediate, s.mlp_bias));
  else
    up_proj = register_module("up_proj", FamilyLinear(s.hidden, s.intermediate, s.mlp_bias));
  down_proj = register_module("down_proj", FamilyLinear(s.intermediate, s.hidden, s.mlp_bias));
}

torch::Tensor DecoderMlpImpl::forward(const torch::Tensor& x) {
  torch::Tensor hidden;
  if (shape.mlp == MlpKind::Plain) {
    hidden = activate(shape.activation, apply_linear(up_proj, x, fp8));
  } else if (shape.mlp == MlpKind::GatedFused) {  // Phi-3: [gate; up], up * act(gate)
    const auto both = apply_linear(gate_up_proj, x, fp8).chunk(2, -1);
    hidden = both[1] * activate(shape.activation, both[0]);
  } else {
    hidden = activate(shape.activation, apply_linear(gate_proj, x, fp8)) * apply_linear(up_proj, x, fp8);
  }
  return apply_linear(down_proj, hidden, fp8);
}

void DecoderLayerImpl::reset() {
  const DecoderShape& s = shape;
  const auto norm = [&](const char* name) { return register_module(name, DecoderNorm(s.norm, s.hidden, s.norm_eps)); };
  // HF's names by placement: post_attention_layernorm is the MLP's input norm in a pre-norm
  // block and attention's output norm where one exists.
  if (s.placement != NormPlacement::Post) attention_in = norm("input_layernorm");
  if (s.latent) latent_attn = register_module("self_attn", std::make_shared<DecoderLatentAttentionImpl>(s));
  else self_attn = register_module("self_attn", DecoderAttention(s));
  if (s.placement == NormPlacement::Pre) mlp_in = norm("post_attention_layernorm");
  else attention_out = norm("post_attention_layernorm");
  if (s.placement == NormPlacement::Sandwich) mlp_in = norm("pre_feedforward_layernorm");
  if (s.placement != NormPlacement::Pre) mlp_out = norm("post_feedforward_layernorm");
  if (s.sparse_layer(index)) experts = register_module("mlp", std::make_shared<DecoderMoeImpl>(s));
  else mlp = register_module("mlp", DecoderMlp(s));
}

torch::Tensor DecoderLayerImpl::forward(const torch::Tensor& x, const AttentionInputs& inputs) {
  const auto branch = [](DecoderNorm& norm, const torch::Tensor& t) { return norm ? norm(t) : t; };
  const auto feed_forward = [&](const torch::Tensor& t) { return experts ? experts->forward(t) : mlp(t); };
  const auto attend = [&](const torch::Tensor& t) { return latent_attn ? latent_attn->forward(t, inputs) : self_attn(t, inputs); };
  auto attention = branch(attention_out, attend(branch(attention_in, x)));
  if (shape.parallel_residual) return feed_forward(branch(mlp_in, x)) + attention + x;  // GPT-NeoX's order of adds
  if (shape.residual_multiplier != 1.0) attention = attention * shape.residual_multiplier;
  const auto h = x + attention;
  auto out = branch(mlp_out, feed_forward(branch(mlp_in, h)));
  if (shape.residual_multiplier != 1.0) out = out * shape.residual_multiplier;
  return h + out;
}

void DecoderTrunkImpl::reset() {
  embed_tokens = register_module("embed_tokens", FamilyEmbedding(shape.vocab, shape.hidden, shape.pad_token_id));
  layers = register_module("layers", torch::nn::ModuleList());
  for (std::int64_t i = 0; i < shape.layers; ++i) layers->push_back(DecoderLayer(shape, i));
  norm = register_module("norm", DecoderNorm(shape.norm, shape.hidden, shape.norm_eps));
}

void DecoderLmImpl::reset() {
  model = register_module("model", DecoderTrunk(shape));
  if (!shape.tie_word_embeddings) lm_head = register_module("lm_head", FamilyLinear(shape.hidden, shape.vocab, false));
}

void DecoderLmImpl::init_weights() {
  torch::NoGradGuard no_grad;
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* l = module->as<FamilyLinear>()) {
      torch::nn::init::normal_(l->weight, 0.0, 0.02);
      if (l->bias.defined()) torch::nn::init::zeros_(l->bias);
    }
    if (auto* e = module->as<FamilyEmbedding>()) torch::nn::init::normal_(e->weight, 0.0, 0.02);
    if (auto* n = module->as<DecoderNormImpl>()) n->init_weights();
    if (auto* a = module->as<DecoderAttentionImpl>(); a && a->sinks.defined()) torch::nn::init::normal_(a->sinks, 0.0, 0.02);
    if (auto* e = module->as<StackedExpertsImpl>()) e->init_weights();
    if (auto* m = module->as<DecoderMoeImpl>()) m->init_weights();
  }
  if (shape.pad_token_id) model->embed_tokens->weight[*shape.pad_token_id].zero_();
}

void DecoderLmImpl::make_rope_frequencies(torch::Device device) {
  inverse_frequencies_.clear();
  attention_factors_.clear();
  for (std::size_t r = 0; r < shape.ropes.size(); ++r) {
    const std::int64_t dim = shape.rotary_dim(static_cast<int>(r));
    const RopeFrequencies short_context = rope_frequencies(shape.ropes[r], dim, false);
    const RopeFrequencies long_context = rope_frequencies(shape.ropes[r], dim, true);
    inverse_frequencies_.push_back({short_context.inverse.to(device), long_context.inverse.to(device)});
    // HF's LongRoPE scales both by the same factor (from the configured context).
    attention_factors_.push_back(short_context.attention_factor);
  }
}

const torch::Tensor& DecoderLmImpl::rope_inverse_frequencies(int rope, bool long_context) const {
  return inverse_frequencies_.at(static_cast<std::size_t>(rope))[long_context ? 1 : 0];
}

std::vector<AttentionInputs> DecoderLmImpl::layer_inputs(std::int64_t tokens, torch::Device device) {
  // A replica (data_parallel's clone) on another device makes its own copies once.
  if (inverse_frequencies_.empty() || inverse_frequencies_[0][0].device() != device) make_rope_frequencies(device);
  // cos and sin of each RoPE and the mask of each window, made once a forward for every layer.
  std::map<int, std::pair<torch::Tensor, torch::Tensor>> tables;
  std::map<std::int64_t, torch::Tensor> masks;
  std::vector<AttentionInputs> inputs;
  for (std::int64_t i = 0; i < shape.layers; ++i) {
    const LayerAttention layer = shape.attention_of(i);
    AttentionInputs in;
    if (layer.rope >= 0) {
      if (!tables.count(layer.rope)) {
        const bool long_context = rope_long_context(shape.ropes.at(static_cast<std::size_t>(layer.rope)), tokens);
        tables[layer.rope] = rope_tables(rope_inverse_frequencies(layer.rope, long_context),
                                         attention_factors_.at(static_cast<std::size_t>(layer.rope)), tokens);
      }
      std::tie(in.cos, in.sin) = tables[layer.rope];
    }
    // A window of at least the sequence is causal attention (the fused kernel's fast path).
    if (layer.window && *layer.window < tokens) {
      if (!masks.count(*layer.window)) masks[*layer.window] = window_mask(tokens, *layer.window, device);
      in.mask = masks[*layer.window];
    }
    inputs.push_back(in);
  }
  return inputs;
}

torch::Tensor DecoderLmImpl::forward(const torch::Tensor& tokens) {
  // RoPE computes any position, as HF does past max_position_embeddings: no length check.
  auto x = model->embed_tokens(tokens);
  if (shape.embedding_scale != 1.0) x = x * shape.embedding_scale;
  const auto inputs = layer_inputs(tokens.size(1), tokens.device());
  for (std::size_t index = 0; index < model->layers->size(); ++index) {
    DecoderLayer layer(model->layers->ptr<DecoderLayerImpl>(index));
    const AttentionInputs in = inputs[index];
    x = segments.run(index, [layer, in](const torch::Tensor& t) mutable { return layer->forward(t, in); }, x);
  }
  x = model->norm(x);
  auto logits = shape.tie_word_embeddings ? torch::linear(x, model->embed_tokens->weight) : lm_head(x);
  if (shape.logits_divisor != 1.0) logits = logits / shape.logits_divisor;
  if (shape.final_softcap) logits = softcap(logits, *shape.final_softcap);
  return logits;
}

void DecoderLmImpl::use_fp8_linears() {
  for (const auto& module : *model->layers) {
    auto* layer = module->as<DecoderLayerImpl>();
    if (layer->self_attn) layer->self_attn->fp8 = true;
    if (layer->latent_attn) layer->latent_attn->fp8 = true;
    // Not a mixture of experts' experts: each computes a varying count of tokens, and
    // _scaled_mm takes multiples of 16 rows only; they stay in the autocast dtype.
    if (layer->mlp) layer->mlp->fp8 = true;
  }
}

torch::Tensor DecoderLmImpl::auxiliary_loss() {
  if (!shape.moe.aux_loss_coef) return {};
  std::vector<torch::Tensor> logits;
  for (const auto& module : *model->layers) {
    auto* layer = module->as<DecoderLayerImpl>();
    if (!layer->experts || !layer->experts->router_logits.defined()) continue;
    logits.push_back(layer->experts->router_logits);
    layer->experts->router_logits = torch::Tensor();
  }
  if (logits.empty()) return {};
  const torch::Tensor balance = load_balancing_loss(logits, shape.moe.experts, shape.moe.top_k);
  last_load_balancing_loss_ = balance.detach();
  return balance * *shape.moe.aux_loss_coef;
}

nlohmann::json DecoderLmImpl::moe_report() const {
  nlohmann::json layers = nlohmann::json::array();
  double busiest = 0.0;
  const char* computed_as = nullptr;  // every sparse layer has the same widths, so the same choice
  for (const auto& module : *model->layers) {
    const auto* layer = module->as<DecoderLayerImpl>();
    if (!layer->experts || !layer->experts->tokens_per_expert.defined()) continue;
    if (computed_as == nullptr) computed_as = layer->experts->computed_as;
    const auto counts = layer->experts->tokens_per_expert.to(torch::kCPU, torch::kFloat64);
    const double ratio = counts.max().item<double>() / std::max(counts.mean().item<double>(), 1e-12);
    busiest = std::max(busiest, ratio);
    const auto* data = counts.data_ptr<double>();
    layers.push_back({{"layer", layer->index},
                      {"tokens_per_expert", std::vector<double>(data, data + counts.numel())},
                      {"max_over_mean", ratio}});
  }
  nlohmann::json report = {{"experts", shape.moe.experts},
                           {"top_k", shape.moe.top_k},
                           {"tokens_per_expert_max_over_mean", layers.empty() ? nlohmann::json(nullptr) : nlohmann::json(busiest)},
                           {"layers", layers},
                           {"counted", "top-k slots of this process's training forwards (rank 0 under ddp, zero and fsdp)"},
                           {"experts_computed_as", computed_as == nullptr ? nlohmann::json(nullptr) : nlohmann::json(computed_as)}};
  if (last_load_balancing_loss_.defined())
    report["last_load_balancing_loss"] = last_load_balancing_loss_.item<double>();
  return report;
}

Model make_decoder_model(const DecoderShape& shape, const ModelTechniques& techniques, const WeightLoader& load) {
  DecoderLm model = filled_on(DecoderLm(shape), techniques.device, load);
  model->segments.checkpoint = techniques.checkpoint;
  if (techniques.fp8_linears) model->use_fp8_linears();
  model->make_rope_frequencies(model->model->norm->weight.device());
  Model wrapped = wrap_model(model);
  declare_units(wrapped, model, model->model->layers->children());
  if (shape.moe.aux_loss_coef) wrapped.auxiliary_loss = [model]() mutable { return model->auxiliary_loss(); };
  if (shape.moe.experts > 0) {
    wrapped.run_report = [model]() { return model->moe_report(); };
    std::vector<std::shared_ptr<DecoderMoeImpl>> sparse;
    for (const auto& child : model->model->layers->children()) {
      const auto layer = std::dynamic_pointer_cast<DecoderLayerImpl>(child);
      if (!layer || !layer->experts) continue;
      layer->experts->gemms = techniques.expert_gemms;
      layer->experts->sparse_index = sparse.size();
      sparse.push_back(layer->experts);
      auto& experts = wrapped.expert_parameters.emplace_back();
      if (layer->experts->stacked) continue;  // one tensor for every expert: ep refuses it (set below)
      for (const auto& expert : layer->experts->experts->children()) experts.push_back(expert->parameters());
    }
    const bool stacked = shape.moe.layout == MoeShape::Experts::Stacked;
    wrapped.set_expert_exchange = [sparse, stacked](std::shared_ptr<ExpertExchange> exchange) {
      if (stacked && exchange) throw UsageError(kStackedExpertParallel);
      for (const auto& layer : sparse) layer->exchange = exchange;
    };
  }
  return wrapped;
}

}  // namespace gpubench
