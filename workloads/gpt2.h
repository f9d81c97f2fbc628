#pragma once
#include "workloads/family_layers.h"
#include "workloads/workload.h"

namespace gpubench {

// The GPT-2 family's shape. The defaults are GPT-2 small as nanoGPT's GPTConfig: 12
// layers, 12 heads, n_embd 768, context 1024, vocabulary 50304 (GPT-2's 50257 padded to a
// multiple of 64), biases, LayerNorm eps 1e-5, exact GELU, dropout 0. A HF config.json of
// any size gives the rest (its activation_function gelu_new: the tanh approximation).
struct Gpt2Shape {
  std::int64_t vocab = 50304, layers = 12, heads = 12, embd = 768, context = 1024;
  std::int64_t inner = 0;  // the MLP's width; 0: 4 * embd
  double layer_norm_eps = 1e-5;
  bool tanh_gelu = false;  // HF's gelu_new / gelu_pytorch_tanh; false: exact (erf) GELU
  std::int64_t mlp_width() const { return inner > 0 ? inner : 4 * embd; }
  // Parameters, the tied LM head once and the position embeddings included: 124,475,904.
  std::int64_t parameters() const;
};

// Causal self-attention: c_attn (C -> 3C) into q, k, v per head, at::scaled_dot_product_
// attention(is_causal=true) (flash / memory-efficient kernels on a GPU, as PyTorch users
// get), c_proj (C -> C).
struct Gpt2AttentionImpl : torch::nn::Cloneable<Gpt2AttentionImpl> {
  explicit Gpt2AttentionImpl(Gpt2Shape shape) : shape(shape) { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x);  // [B, T, C] -> [B, T, C]
  Gpt2Shape shape;
  bool fp8 = false;  // c_attn and c_proj as FP8 matmuls (workloads/fp8_linear.h)
  FamilyLinear c_attn{nullptr}, c_proj{nullptr};
};
TORCH_MODULE(Gpt2Attention);

// c_fc (C -> 4C, or n_inner), GELU (exact, or tanh for HF's gelu_new), c_proj back to C.
struct Gpt2MlpImpl : torch::nn::Cloneable<Gpt2MlpImpl> {
  explicit Gpt2MlpImpl(Gpt2Shape shape) : shape(shape) { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x);
  Gpt2Shape shape;
  bool fp8 = false;  // c_fc and c_proj as FP8 matmuls
  FamilyLinear c_fc{nullptr}, c_proj{nullptr};
};
TORCH_MODULE(Gpt2Mlp);

// Pre-LN block: x + attn(ln_1(x)), then x + mlp(ln_2(x)).
struct Gpt2BlockImpl : torch::nn::Cloneable<Gpt2BlockImpl> {
  explicit Gpt2BlockImpl(Gpt2Shape shape) : shape(shape) { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x);
  Gpt2Shape shape;
  torch::nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  Gpt2Attention attn{nullptr};
  Gpt2Mlp mlp{nullptr};
};
TORCH_MODULE(Gpt2Block);

// nanoGPT's `transformer` ModuleDict: wte, wpe, h (the blocks), ln_f.
struct Gpt2TrunkImpl : torch::nn::Cloneable<Gpt2TrunkImpl> {
  explicit Gpt2TrunkImpl(Gpt2Shape shape) : shape(shape) { reset(); }
  void reset() override;
  Gpt2Shape shape;
  FamilyEmbedding wte{nullptr}, wpe{nullptr};
  torch::nn::ModuleList h{nullptr};
  torch::nn::LayerNorm ln_f{nullptr};
};
TORCH_MODULE(Gpt2Trunk);

// nanoGPT's GPT: tokens [B, T] int64 -> logits [B, T, vocab]. The LM head is the token
// embedding (weight tying): logits = ln_f(x) @ wte^T, so it is one parameter, named
// transformer.wte.weight (HF's lm_head.weight maps to it). Parameter names are nanoGPT's
// and HF GPT2LMHeadModel's (workloads/reference_weights.h). Built with its parameters
// uninitialised (family_layers.h): init_weights() draws nanoGPT's init, Linear and Embedding
// weights N(0, 0.02), biases 0, the residual projections (attn.c_proj, mlp.c_proj)
// N(0, 0.02 / sqrt(2 * layers)), LayerNorm 1 and 0, on the device the parameters are on.
struct Gpt2Impl : torch::nn::Cloneable<Gpt2Impl> {
  explicit Gpt2Impl(Gpt2Shape shape = {}) : shape(shape) { reset(); }
  void reset() override;
  void init_weights();
  torch::Tensor forward(const torch::Tensor& tokens);
  Gpt2Shape shape;
  SegmentRunner segments;  // its blocks: ckpt, fsdp's units
  // The fp8 precision: every Linear of the blocks runs its three matmuls in FP8; the tied
  // LM head (and attention, LayerNorm, embeddings) stay in the autocast dtype.
  void use_fp8_linears();
  Gpt2Trunk transformer{nullptr};
};
TORCH_MODULE(Gpt2);

// The compile technique's Python twin of a GPT-2 of `shape` (scripts/compile_twins.py's Gpt2).
PythonTwin gpt2_python_twin(const Gpt2Shape& shape);

// A GPT-2 ready to train: its parameters made on techniques.device, filled by `load`, or
// with none by init_weights() there; ckpt and fp8 as the techniques ask.
Model make_gpt2_model(const Gpt2Shape& shape, const ModelTechniques& techniques, const WeightLoader& load = {});

// GPT-2 124M on windows of 1024 tokens: micro-batch 16 sequences on a GPU, 1 on a CPU.
// Synthetic tokens by default (a skewed sparse Markov stream); --data gpt2=FILE reads a
// nanoGPT train.bin (uint16 token ids, memory-mapped), random windows of 1025 tokens.
class Gpt2Workload final : public Workload {
 public:
  // GPT-2's BPE vocabulary: real token ids are below it; the model's rows above it (the
  // padding to 50304) are never a target.
  static constexpr std::int64_t kTokenizerVocab = 50257;
  std::string name() const override { return "gpt2"; }
  std::int64_t default_batch_size(DeviceKind device) const override { return device == DeviceKind::Cuda ? 16 : 1; }
  std::int64_t base_dataset_samples() const override { return 2048; }
  Model make_model() const override { return make_model_with({}); }
  Model make_model_with(const ModelTechniques& techniques) const override;  // checkpoint, fp8_linears
  Dataset make_dataset(const DatasetRequest& request) const override;
  torch::Tensor loss(const torch::Tensor& output, const torch::Tensor& targets) const override;
  nlohmann::json describe() const override;
  // nanoGPT's estimate_mfu (PaLM appendix B): per token 6 N + 12 L H Q T training FLOPs, N
  // the parameters without the position embeddings; as forward multiply-adds (model_flops.h's
  // 6 per multiply-add) a sequence is T (N + 2 L C T).
  std::int64_t forward_macs_per_sample() const override;
  std::string flops_convention() const override;
  std::int64_t tokens_per_sample() const override { return Gpt2Shape{}.context; }
  std::string real_data_format() const override;
  bool real_scale() const override { return true; }
  WorkloadTraits traits() const override;
  std::optional<PythonTwin> python_twin() const override { return gpt2_python_twin({}); }
  std::optional<std::int64_t> declared_parameters() const override { return Gpt2Shape{}.parameters(); }
  std::optional<MemoryEstimate> memory_estimate(const Config& config, std::int64_t batch_size) const override;
};

}  // namespace gpubench
