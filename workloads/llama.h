#pragma once
// The Llama family of decoders (Llama 2/3, Mistral without a sliding window, Qwen2, SmolLM,
// TinyLlama: one architecture) as HF transformers 5.17 computes it, parameter names and
// all, so a model's safetensors load by name. One implementation; the built-in `llama`
// workload is Llama-3.2-1B's shape, a user's `--model` its config.json's.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "workloads/family_layers.h"
#include "workloads/workload.h"

namespace gpubench {

// RoPE as HF's rope_parameters: "default" (inv_freq = 1/theta^(2i/d)) or "llama3" (the
// long wavelengths divided by `factor`, the band between smoothed; Llama 3.1+).
struct RopeShape {
  std::string type = "default";
  double theta = 10000.0;
  double factor = 1.0, low_freq_factor = 1.0, high_freq_factor = 4.0;
  std::int64_t original_max_positions = 8192;
  // The inverse frequencies of a head of `head_dim` channels, fp32, as HF computes them.
  torch::Tensor inverse_frequencies(std::int64_t head_dim) const;
};

struct LlamaShape {
  std::string model_type = "llama";  // llama, mistral or qwen2: what the config said, for the row
  std::int64_t vocab = 32000, hidden = 4096, intermediate = 11008, layers = 32, heads = 32, kv_heads = 32,
               head_dim = 128, max_positions = 2048;
  double rms_norm_eps = 1e-6;
  RopeShape rope;
  bool tie_word_embeddings = false;
  bool qkv_bias = false, o_bias = false, mlp_bias = false;  // as resolved for the family
  std::optional<std::int64_t> pad_token_id;  // its embedding row gets no gradient, as HF's padding_idx
  // Llama-3.2-1B (meta-llama/Llama-3.2-1B config.json): 1,235,814,400 parameters.
  static LlamaShape llama_3_2_1b();
  std::int64_t parameters() const;  // the tied head once
  nlohmann::json describe() const;
};

// y = weight * (x / rms(x)) in fp32, cast back to x's dtype before the weight (HF's order).
struct RmsNormImpl : torch::nn::Cloneable<RmsNormImpl> {
  RmsNormImpl(std::int64_t size, double eps) : size(size), eps(eps) { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x);
  std::int64_t size;
  double eps;
  torch::Tensor weight;
};
TORCH_MODULE(RmsNorm);

// Grouped-query attention: q_proj, k_proj, v_proj, RoPE on q and k (half-split pairs),
// at::scaled_dot_product_attention(is_causal, enable_gqa) (flash / memory-efficient kernels
// on a GPU), o_proj.
struct LlamaAttentionImpl : torch::nn::Cloneable<LlamaAttentionImpl> {
  explicit LlamaAttentionImpl(LlamaShape shape) : shape(std::move(shape)) { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin);
  LlamaShape shape;
  bool fp8 = false;
  FamilyLinear q_proj{nullptr}, k_proj{nullptr}, v_proj{nullptr}, o_proj{nullptr};
};
TORCH_MODULE(LlamaAttention);

// SwiGLU: down_proj(silu(gate_proj(x)) * up_proj(x)).
struct LlamaMlpImpl : torch::nn::Cloneable<LlamaMlpImpl> {
  explicit LlamaMlpImpl(LlamaShape shape) : shape(std::move(shape)) { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x);
  LlamaShape shape;
  bool fp8 = false;
  FamilyLinear gate_proj{nullptr}, up_proj{nullptr}, down_proj{nullptr};
};
TORCH_MODULE(LlamaMlp);

// h = x + attn(input_layernorm(x)); out = h + mlp(post_attention_layernorm(h)).
struct LlamaLayerImpl : torch::nn::Cloneable<LlamaLayerImpl> {
  explicit LlamaLayerImpl(LlamaShape shape) : shape(std::move(shape)) { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin);
  LlamaShape shape;
  RmsNorm input_layernorm{nullptr}, post_attention_layernorm{nullptr};
  LlamaAttention self_attn{nullptr};
  LlamaMlp mlp{nullptr};
};
TORCH_MODULE(LlamaLayer);

// HF's LlamaModel: embed_tokens, layers, norm.
struct LlamaTrunkImpl : torch::nn::Cloneable<LlamaTrunkImpl> {
  explicit LlamaTrunkImpl(LlamaShape shape) : shape(std::move(shape)) { reset(); }
  void reset() override;
  LlamaShape shape;
  FamilyEmbedding embed_tokens{nullptr};
  torch::nn::ModuleList layers{nullptr};
  RmsNorm norm{nullptr};
};
TORCH_MODULE(LlamaTrunk);

// HF's LlamaForCausalLM: tokens [B, T] -> logits [B, T, vocab]; `model` and, untied,
// `lm_head` (no bias). Built with its parameters uninitialised (family_layers.h):
// init_weights() draws HF's init, Linear and Embedding N(0, 0.02), biases 0, the padding row
// 0, norms 1, on the device the parameters are on.
struct LlamaImpl : torch::nn::Cloneable<LlamaImpl> {
  explicit LlamaImpl(LlamaShape shape = LlamaShape::llama_3_2_1b()) : shape(std::move(shape)) { reset(); }
  void reset() override;
  void init_weights();
  torch::Tensor forward(const torch::Tensor& tokens);
  // Every Linear of the layers as FP8 matmuls (workloads/fp8_linear.h); not the LM head.
  void use_fp8_linears();
  // RoPE's inverse frequencies on `device`: HF's bits, computed on the host as HF does, copied
  // to the device once and kept. A copy from the host in every forward synced the host each
  // step, and is refused while a CUDA Graph captures the step: make_llama_model makes it on
  // the training device before any forward.
  const torch::Tensor& rotary_inverse_frequencies(torch::Device device);
  LlamaShape shape;
  SegmentRunner segments;  // its layers: ckpt, fsdp's units
  LlamaTrunk model{nullptr};
  FamilyLinear lm_head{nullptr};

 private:
  // Not a buffer: make_on leaves buffers uninitialised on the device, checkpoints save them
  // and a model file's names are held against them; HF's inv_freq is not persistent either.
  torch::Tensor inverse_frequencies_;
};
TORCH_MODULE(Llama);

// A Llama ready to train: its parameters made on techniques.device, filled by `load`, or
// with none by init_weights() there; ckpt and fp8 as the techniques ask.
Model make_llama_model(const LlamaShape& shape, const ModelTechniques& techniques, const WeightLoader& load = {});

}  // namespace gpubench
