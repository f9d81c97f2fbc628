#pragma once
#include "workloads/workload.h"

namespace gpubench {

struct TransformerShape {
  std::int64_t vocab = 4096, d_model = 256, heads = 4, layers = 4, ffn = 1024, seq_len = 128;
};

// Pre-LN decoder block: LN -> causal self-attention -> residual; LN -> Linear-GELU-Linear -> residual.
// Activations are [seq, batch, d_model], the layout LibTorch's MultiheadAttention takes.
struct DecoderBlockImpl : torch::nn::Cloneable<DecoderBlockImpl> {
  explicit DecoderBlockImpl(TransformerShape shape) : shape(shape) { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& causal_mask);
  // Multiply-adds of one sequence of `seq` tokens through the block: per token the
  // attention's q/k/v projections (3 d^2) and output projection (d^2), the MLP (2 d ffn);
  // per sequence the two attention matmuls, QK^T and AV (seq^2 d each, all heads; the
  // causal mask is applied to a dense product, so the masked half is computed too).
  std::int64_t forward_macs(std::int64_t seq) const;

  TransformerShape shape;
  torch::nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  torch::nn::MultiheadAttention attention{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(DecoderBlock);

// Decoder-only LM: token + learned position embeddings, pre-LN blocks, final LN, Linear head.
struct TransformerImpl : torch::nn::Cloneable<TransformerImpl> {
  explicit TransformerImpl(TransformerShape shape = {}) : shape(shape) { reset(); }
  void reset() override;
  // tokens [batch, seq] int64 -> logits [batch, seq, vocab]
  torch::Tensor forward(const torch::Tensor& tokens);
  // Multiply-adds of one sequence's forward (model_flops.h): every block, and the head's
  // d x vocab per token; embedding lookups and layer norms count none.
  std::int64_t forward_macs_per_sample(std::int64_t seq) const;

  TransformerShape shape;
  torch::nn::Embedding token_embedding{nullptr}, position_embedding{nullptr};
  torch::nn::ModuleList blocks{nullptr};
  torch::nn::LayerNorm final_ln{nullptr};
  torch::nn::Linear head{nullptr};
  torch::Tensor causal_mask;  // buffer [seq, seq]: -inf above the diagonal
  SegmentRunner segments;  // its blocks: ckpt, fsdp's units
};
TORCH_MODULE(Transformer);

class TransformerWorkload final : public Workload {
 public:
  std::string name() const override { return "transformer"; }
  std::int64_t default_batch_size(DeviceKind) const override { return 32; }
  std::int64_t base_dataset_samples() const override { return 2048; }
  Model make_model() const override { return make_model_with({}); }
  Model make_model_with(const ModelTechniques& techniques) const override;  // checkpoint
  Dataset make_dataset(const DatasetRequest& request) const override;
  // Next-token cross-entropy over every position.
  torch::Tensor loss(const torch::Tensor& output, const torch::Tensor& targets) const override;
  nlohmann::json describe() const override;
  std::int64_t forward_macs_per_sample() const override {
    return Transformer()->forward_macs_per_sample(TransformerShape{}.seq_len);
  }
  WorkloadTraits traits() const override;
  std::optional<MemoryEstimate> memory_estimate(const Config& config, std::int64_t batch_size) const override;
};

}  // namespace gpubench
