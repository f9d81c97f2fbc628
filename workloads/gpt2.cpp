#include "workloads/gpt2.h"

#include <cmath>

#include "core/config/errors.h"
#include "workloads/decoder_lm.h"
#include "workloads/data/token_windows.h"
#include "workloads/fp8_linear.h"

namespace gpubench {

std::int64_t Gpt2Shape::parameters() const {
  const std::int64_t c = embd, f = mlp_width();
  const std::int64_t block = 2 * c + (c * 3 * c + 3 * c) + (c * c + c) + 2 * c + (c * f + f) + (f * c + c);
  return vocab * c + context * c + layers * block + 2 * c;
}

void Gpt2AttentionImpl::reset() {
  c_attn = register_module("c_attn", FamilyLinear(shape.embd, 3 * shape.embd, true));
  c_proj = register_module("c_proj", FamilyLinear(shape.embd, shape.embd, true));
}

torch::Tensor Gpt2AttentionImpl::forward(const torch::Tensor& x) {
  const auto batch = x.size(0), tokens = x.size(1), c = shape.embd, heads = shape.heads;
  const auto qkv = apply_linear(c_attn, x, fp8).split(c, /*dim=*/2);
  const auto per_head = [&](const torch::Tensor& t) { return t.view({batch, tokens, heads, c / heads}).transpose(1, 2); };
  const auto y = at::scaled_dot_product_attention(per_head(qkv[0]), per_head(qkv[1]), per_head(qkv[2]), /*attn_mask=*/{},
                                                  /*dropout_p=*/0.0, /*is_causal=*/true);
  return apply_linear(c_proj, y.transpose(1, 2).contiguous().view({batch, tokens, c}), fp8);
}

void Gpt2MlpImpl::reset() {
  c_fc = register_module("c_fc", FamilyLinear(shape.embd, shape.mlp_width(), true));
  c_proj = register_module("c_proj", FamilyLinear(shape.mlp_width(), shape.embd, true));
}

torch::Tensor Gpt2MlpImpl::forward(const torch::Tensor& x) {
  const auto hidden = apply_linear(c_fc, x, fp8);
  return apply_linear(c_proj, shape.tanh_gelu ? torch::gelu(hidden, "tanh") : torch::gelu(hidden), fp8);
}

void Gpt2BlockImpl::reset() {
  const auto norm = torch::nn::LayerNormOptions({shape.embd}).eps(shape.layer_norm_eps);
  ln_1 = register_module("ln_1", torch::nn::LayerNorm(norm));
  attn = register_module("attn", Gpt2Attention(shape));
  ln_2 = register_module("ln_2", torch::nn::LayerNorm(norm));
  mlp = register_module("mlp", Gpt2Mlp(shape));
}

torch::Tensor Gpt2BlockImpl::forward(const torch::Tensor& x) {
  const auto h = x + attn(ln_1(x));
  return h + mlp(ln_2(h));
}

void Gpt2TrunkImpl::reset() {
  wte = register_module("wte", FamilyEmbedding(shape.vocab, shape.embd));
  wpe = register_module("wpe", FamilyEmbedding(shape.context, shape.embd));
  h = register_module("h", torch::nn::ModuleList());
  for (std::int64_t i = 0; i < shape.layers; ++i) h->push_back(Gpt2Block(shape));
  ln_f = register_module("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({shape.embd}).eps(shape.layer_norm_eps)));
}

void Gpt2Impl::reset() { transformer = register_module("transformer", Gpt2Trunk(shape)); }

void Gpt2Impl::init_weights() {
  torch::NoGradGuard no_grad;
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* linear = module->as<FamilyLinear>()) {
      torch::nn::init::normal_(linear->weight, 0.0, 0.02);
      torch::nn::init::zeros_(linear->bias);
    }
    if (auto* embedding = module->as<FamilyEmbedding>()) torch::nn::init::normal_(embedding->weight, 0.0, 0.02);
    if (auto* norm = module->as<torch::nn::LayerNorm>()) {
      torch::nn::init::ones_(norm->weight);
      torch::nn::init::zeros_(norm->bias);
    }
  }
  // GPT-2's scaled init of the projections into the residual stream.
  const double residual_std = 0.02 / std::sqrt(2.0 * static_cast<double>(shape.layers));
  for (const auto& block : *transformer->h) {
    auto* b = block->as<Gpt2BlockImpl>();
    torch::nn::init::normal_(b->attn->c_proj->weight, 0.0, residual_std);
    torch::nn::init::normal_(b->mlp->c_proj->weight, 0.0, residual_std);
  }
}

torch::Tensor Gpt2Impl::forward(const torch::Tensor& tokens) {
  const auto length = tokens.size(1);
  if (length > shape.context)
    throw std::invalid_argument("gpt2: a sequence of " + std::to_string(length) + " tokens is longer than the context (" +
                                std::to_string(shape.context) + ")");
  const auto positions = torch::arange(length, tokens.options());
  auto x = transformer->wte(tokens) + transformer->wpe(positions);
  for (std::size_t index = 0; index < transformer->h->size(); ++index) {
    auto* b = transformer->h[index]->as<Gpt2BlockImpl>();
    x = segments.run(index, [b](const torch::Tensor& in) { return b->forward(in); }, x);
  }
  return torch::linear(transformer->ln_f(x), transformer->wte->weight);  // the tied LM head
}

void Gpt2Impl::use_fp8_linears() {
  for (const auto& block : *transformer->h) {
    auto* b = block->as<Gpt2BlockImpl>();
    b->attn->fp8 = true;
    b->mlp->fp8 = true;
  }
}

PythonTwin gpt2_python_twin(const Gpt2Shape& shape) {
  return {"gpt2", {{"vocab", shape.vocab}, {"layers", shape.layers}, {"heads", shape.heads}, {"embd", shape.embd},
                   {"context", shape.context}, {"inner", shape.inner}, {"layer_norm_eps", shape.layer_norm_eps},
                   {"tanh_gelu", shape.tanh_gelu}}};
}

Model make_gpt2_model(const Gpt2Shape& shape, const ModelTechniques& techniques, const WeightLoader& load) {
  Gpt2 model = filled_on(Gpt2(shape), techniques.device, load);
  model->segments.checkpoint = techniques.checkpoint;
  if (techniques.fp8_linears) model->use_fp8_linears();
  Model wrapped = wrap_model(model);
  declare_units(wrapped, model, model->transformer->h->children());
  return wrapped;
}

Model Gpt2Workload::make_model_with(const ModelTechniques& techniques) const { return make_gpt2_model({}, techniques); }

Dataset Gpt2Workload::make_dataset(const DatasetRequest& request) const {
  const Gpt2Shape shape;
  TokenWindowOptions options{request.samples, shape.context, request.seed, shape.vocab, request.full_check};
  // Synthetic ids are the tokenizer's (the ids a train.bin holds), below the padded vocab.
  return Dataset(token_lm_samples(request.data_path, options, kTokenizerVocab));
}

torch::Tensor Gpt2Workload::loss(const torch::Tensor& output, const torch::Tensor& targets) const {
  return next_token_loss(output, targets);
}

std::int64_t Gpt2Workload::forward_macs_per_sample() const {
  const Gpt2Shape s;
  const std::int64_t non_embedding = s.parameters() - s.context * s.embd;  // nanoGPT's get_num_params()
  return s.context * (non_embedding + 2 * s.layers * s.embd * s.context);
}

std::string Gpt2Workload::flops_convention() const {
  return "nanoGPT estimate_mfu / PaLM appendix B: 6 N + 12 L H Q T training FLOPs per token (N = parameters without "
         "position embeddings, attention over the full context T, causal half included); forward = a third";
}

std::string Gpt2Workload::real_data_format() const {
  return "a nanoGPT train.bin (uint16 token ids)";
}

nlohmann::json Gpt2Workload::describe() const {
  const Gpt2Shape s;
  return {{"definition",
           "GPT-2 124M as nanoGPT's GPT: 12 layers, 12 heads, n_embd 768, context 1024, vocab 50304 (50257 padded), "
           "learned positions, pre-LN blocks (LN eps 1e-5, biases) with causal scaled_dot_product_attention and an "
           "exact-GELU MLP 768->3072->768, final LN, LM head tied to the token embedding; dropout 0; N(0,0.02) init, "
           "residual projections 0.02/sqrt(24); next-token cross-entropy; Adam lr 1e-3"},
          {"vocab", s.vocab},
          {"tokenizer_vocab", kTokenizerVocab},
          {"layers", s.layers},
          {"heads", s.heads},
          {"n_embd", s.embd},
          {"seq_len", s.context},
          {"input_shape", {s.context}},
          {"reference", "nanoGPT GPT (defaults) = HF transformers GPT2LMHeadModel (5.17.0) with vocab_size 50304, "
                        "activation_function gelu, dropouts 0; names map one to one, Conv1D weights transposed"}};
}

WorkloadTraits Gpt2Workload::traits() const {
  WorkloadTraits traits;
  traits.segments = true;     // its twelve blocks
  traits.units = true;        // the same blocks
  traits.fp8_linears = true;  // every Linear of the blocks
  traits.real_scale = true;
  traits.python_twin = true;
  return traits;
}

std::optional<MemoryEstimate> Gpt2Workload::memory_estimate(const Config& config, std::int64_t batch_size) const {
  const Gpt2Shape s;
  DecoderSizes sizes{s.parameters(), s.context, s.embd, s.heads, s.layers, s.vocab};
  sizes.root_parameters = (s.vocab + s.context + 2) * s.embd;  // wte (tied head), wpe, ln_f
  return decoder_memory_estimate(config, batch_size, sizes);
}

}  // namespace gpubench
