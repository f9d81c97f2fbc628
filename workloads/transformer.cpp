#include "workloads/transformer.h"

#include <limits>

#include "workloads/decoder_lm.h"
#include "workloads/data/synthetic_tokens.h"
#include "workloads/model_flops.h"

namespace gpubench {

void DecoderBlockImpl::reset() {
  ln1 = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({shape.d_model})));
  attention = register_module("attention", torch::nn::MultiheadAttention(shape.d_model, shape.heads));
  ln2 = register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({shape.d_model})));
  fc1 = register_module("fc1", torch::nn::Linear(shape.d_model, shape.ffn));
  fc2 = register_module("fc2", torch::nn::Linear(shape.ffn, shape.d_model));
}

torch::Tensor DecoderBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& causal_mask) {
  const auto normed = ln1(x);
  // need_weights=false: the averaged attention map is not used and costs a reduction.
  const auto attended = std::get<0>(attention->forward(normed, normed, normed, torch::Tensor(), false, causal_mask));
  auto h = x + attended;
  return h + fc2(torch::gelu(fc1(ln2(h))));
}

std::int64_t DecoderBlockImpl::forward_macs(std::int64_t seq) const {
  const std::int64_t d = attention->options.embed_dim();
  const std::int64_t projections = 4 * d * d;  // in_proj (q, k, v) and out_proj
  const std::int64_t attention_matmuls = 2 * seq * seq * d;
  return seq * (projections + linear_macs(fc1) + linear_macs(fc2)) + attention_matmuls;
}

void TransformerImpl::reset() {
  token_embedding = register_module("token_embedding", torch::nn::Embedding(shape.vocab, shape.d_model));
  position_embedding = register_module("position_embedding", torch::nn::Embedding(shape.seq_len, shape.d_model));
  blocks = register_module("blocks", torch::nn::ModuleList());
  for (std::int64_t i = 0; i < shape.layers; ++i) blocks->push_back(DecoderBlock(shape));
  final_ln = register_module("final_ln", torch::nn::LayerNorm(torch::nn::LayerNormOptions({shape.d_model})));
  head = register_module("head", torch::nn::Linear(shape.d_model, shape.vocab));
  causal_mask = register_buffer(
      "causal_mask", torch::full({shape.seq_len, shape.seq_len}, -std::numeric_limits<float>::infinity()).triu(1));
}

torch::Tensor TransformerImpl::forward(const torch::Tensor& tokens) {
  const auto seq = tokens.size(1);
  const auto positions = torch::arange(seq, tokens.options());
  auto x = (token_embedding(tokens) + position_embedding(positions)).transpose(0, 1);  // [seq, batch, d]
  const auto mask = causal_mask.narrow(0, 0, seq).narrow(1, 0, seq);
  for (std::size_t index = 0; index < blocks->size(); ++index) {
    DecoderBlock block(blocks->ptr<DecoderBlockImpl>(index));
    x = segments.run(index, [block, mask](const torch::Tensor& in) mutable { return block->forward(in, mask); }, x);
  }
  return head(final_ln(x)).transpose(0, 1);  // [batch, seq, vocab]
}

std::int64_t TransformerImpl::forward_macs_per_sample(std::int64_t seq) const {
  std::int64_t macs = seq * linear_macs(head);
  for (const auto& block : *blocks) macs += block->as<DecoderBlock>()->forward_macs(seq);
  return macs;
}

Dataset TransformerWorkload::make_dataset(const DatasetRequest& request) const {
  const TransformerShape shape;
  return Dataset(std::make_shared<TensorDataset>(make_markov_token_stream(request.samples, shape.seq_len, shape.vocab, request.seed)));
}

torch::Tensor TransformerWorkload::loss(const torch::Tensor& output, const torch::Tensor& targets) const {
  return next_token_loss(output, targets);
}

nlohmann::json TransformerWorkload::describe() const {
  const TransformerShape s;
  return {{"definition",
           "decoder-only LM: vocab 4096, d_model 256, 4 heads, 4 pre-LN layers (LN->causal MHA->residual; "
           "LN->Linear 256->1024, GELU, Linear 1024->256->residual), learned positions, final LN, Linear(256->4096); "
           "seq 128; next-token cross-entropy; Adam lr 1e-3"},
          {"vocab", s.vocab},
          {"d_model", s.d_model},
          {"heads", s.heads},
          {"layers", s.layers},
          {"seq_len", s.seq_len},
          {"input_shape", {s.seq_len}}};
}

Model TransformerWorkload::make_model_with(const ModelTechniques& techniques) const {
  if (techniques.fp8_linears) throw std::invalid_argument("transformer has no FP8 Linear layers");
  Transformer transformer;
  transformer->segments.checkpoint = techniques.checkpoint;
  Model model = wrap_model(transformer);
  declare_units(model, transformer, transformer->blocks->children());
  return model;
}

WorkloadTraits TransformerWorkload::traits() const {
  WorkloadTraits traits;
  traits.segments = true;  // its decoder blocks
  traits.units = true;     // the same blocks
  return traits;
}

std::optional<MemoryEstimate> TransformerWorkload::memory_estimate(const Config& config, std::int64_t batch_size) const {
  const TransformerShape s;
  // Counted on a model built once a process, not on one built per estimate (the parent asks
  // for every config).
  static const std::int64_t parameters = wrap_model(Transformer(s)).parameter_count();
  // MultiheadAttention keeps its T x T scores on every device (no fused attention).
  DecoderSizes sizes{parameters, s.seq_len, s.d_model, s.heads, s.layers, s.vocab, /*keeps_attention_scores=*/true};
  sizes.root_parameters = (2 * s.vocab + s.seq_len + 2) * s.d_model + s.vocab;  // embeddings, final LN, head
  return decoder_memory_estimate(config, batch_size, sizes);
}

}  // namespace gpubench
