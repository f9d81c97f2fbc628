#pragma once
// The one decoder every config'd family trains as (Llama, Mistral, Qwen2/3, Gemma 2/3, Phi-3,
// OLMo 2, SmolLM3, Granite, StarCoder2, GPT-NeoX, and the mixtures of experts in
// decoder_moe.h, DeepSeek-V3's latent attention in decoder_mla.h; the built-in `llama` is
// Llama-3.2-1B's shape): HF transformers 5.17's computation, with what differs between
// families read from the DecoderShape's options (workloads/formats/decoder_shape.h), never
// from the family's name. Parameter names are HF's Llama-layout names (model.layers.N.self_attn.q_proj, ...,
// plus q_norm/k_norm, qkv_proj, gate_up_proj and the Gemma/OLMo norms where the options add
// them); a family whose checkpoint names differ maps them (workloads/family_weights.h).
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "workloads/family_layers.h"
#include "workloads/formats/decoder_shape.h"
#include "workloads/workload.h"

namespace gpubench {

// RMSNorm (three dtype orders) or LayerNorm, as the shape's NormKind says, over `size`.
struct DecoderNormImpl : torch::nn::Cloneable<DecoderNormImpl> {
  DecoderNormImpl(NormKind kind, std::int64_t size, double eps) : kind(kind), size(size), eps(eps) { reset(); }
  void reset() override;
  void init_weights();  // HF's: weight 1 (Gemma's 1 + w: 0), bias 0
  torch::Tensor forward(const torch::Tensor& x);
  NormKind kind;
  std::int64_t size;
  double eps;
  torch::Tensor weight, bias;  // bias: LayerNorm only
};
TORCH_MODULE(DecoderNorm);

// What a layer's attention reads besides its input: cos and sin of its RoPE (undefined: no
// RoPE) and its mask (undefined: causal; else true where a query sees a key).
struct AttentionInputs {
  torch::Tensor cos, sin, mask;
};

// q, k, v (apart or fused), optional q/k norms, RoPE, attention (fused SDPA; with a softcap
// or sinks, the scores computed as HF's eager attention), o_proj.
struct DecoderAttentionImpl : torch::nn::Cloneable<DecoderAttentionImpl> {
  explicit DecoderAttentionImpl(DecoderShape shape) : shape(std::move(shape)) { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x, const AttentionInputs& inputs);
  DecoderShape shape;
  bool fp8 = false;
  FamilyLinear q_proj{nullptr}, k_proj{nullptr}, v_proj{nullptr}, qkv_proj{nullptr}, o_proj{nullptr};
  DecoderNorm q_norm{nullptr}, k_norm{nullptr};
  torch::Tensor sinks;  // [heads], with attention_sinks

 private:
  std::tuple<torch::Tensor, torch::Tensor, torch::Tensor> project(const torch::Tensor& x);
  torch::Tensor attend(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& mask);
};
TORCH_MODULE(DecoderAttention);

// Gated (SwiGLU, GeGLU; gate and up apart or fused) or plain (up, act, down) MLP.
struct DecoderMlpImpl : torch::nn::Cloneable<DecoderMlpImpl> {
  explicit DecoderMlpImpl(DecoderShape shape) : shape(std::move(shape)) { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x);
  DecoderShape shape;
  bool fp8 = false;
  FamilyLinear gate_proj{nullptr}, up_proj{nullptr}, gate_up_proj{nullptr}, down_proj{nullptr};
};
TORCH_MODULE(DecoderMlp);

// One block: attention and MLP with their norms where the shape's placement puts them, the
// residual adds (scaled by residual_multiplier), or both branches from the same input
// (parallel residual).
struct DecoderMoeImpl;
struct DecoderLatentAttentionImpl;
struct DecoderLayerImpl : torch::nn::Cloneable<DecoderLayerImpl> {
  DecoderLayerImpl(DecoderShape shape, std::int64_t index) : shape(std::move(shape)), index(index) { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x, const AttentionInputs& inputs);
  DecoderShape shape;
  std::int64_t index;  // which layer: a sparse one has experts in place of the MLP
  // Before and after each branch; absent (nullptr) where the placement has none.
  DecoderNorm attention_in{nullptr}, attention_out{nullptr}, mlp_in{nullptr}, mlp_out{nullptr};
  DecoderAttention self_attn{nullptr};  // grouped-query attention
  std::shared_ptr<DecoderLatentAttentionImpl> latent_attn;  // or latent, registered as "self_attn"
  DecoderMlp mlp{nullptr};                  // a dense layer's
  std::shared_ptr<DecoderMoeImpl> experts;  // a sparse layer's, registered as "mlp" (HF's name)
};
TORCH_MODULE(DecoderLayer);

// HF's <Family>Model: embed_tokens, layers, norm.
struct DecoderTrunkImpl : torch::nn::Cloneable<DecoderTrunkImpl> {
  explicit DecoderTrunkImpl(DecoderShape shape) : shape(std::move(shape)) { reset(); }
  void reset() override;
  DecoderShape shape;
  FamilyEmbedding embed_tokens{nullptr};
  torch::nn::ModuleList layers{nullptr};
  DecoderNorm norm{nullptr};
};
TORCH_MODULE(DecoderTrunk);

// HF's <Family>ForCausalLM: tokens [B, T] -> logits [B, T, vocab]; `model` and, untied,
// `lm_head` (no bias). Built with its parameters uninitialised (family_layers.h):
// init_weights() draws HF's init, Linear and Embedding N(0, 0.02), biases 0, the padding row
// 0, norms as DecoderNorm's, on the device the parameters are on.
struct DecoderLmImpl : torch::nn::Cloneable<DecoderLmImpl> {
  explicit DecoderLmImpl(DecoderShape shape = DecoderShape::llama_3_2_1b()) : shape(std::move(shape)) { reset(); }
  void reset() override;
  void init_weights();
  torch::Tensor forward(const torch::Tensor& tokens);
  // Every Linear of the layers as FP8 matmuls (workloads/fp8_linear.h); not the LM head.
  void use_fp8_linears();
  // The router's load-balancing loss of the last forward times its coefficient (HF's loss
  // with output_router_logits), undefined when the shape has none; the logits are let go.
  torch::Tensor auxiliary_loss();
  // The experts' load over the training forwards: top-k slots per expert and layer, and each
  // layer's and the whole model's busiest expert over the mean (1: perfectly balanced); the
  // last load-balancing loss where there is one.
  nlohmann::json moe_report() const;
  // Each RoPE's inverse frequencies on `device` (LongRoPE: short and long), HF's bits made
  // on the host once and kept: a copy from the host in every forward synced the host each
  // step, and is refused while a CUDA Graph captures it. make_decoder_model makes them on
  // the training device before any forward.
  void make_rope_frequencies(torch::Device device);
  const torch::Tensor& rope_inverse_frequencies(int rope, bool long_context = false) const;
  DecoderShape shape;
  SegmentRunner segments;  // its layers: ckpt, fsdp's units
  DecoderTrunk model{nullptr};
  FamilyLinear lm_head{nullptr};

 private:
  std::vector<AttentionInputs> layer_inputs(std::int64_t tokens, torch::Device device);
  // Not buffers: make_on leaves buffers uninitialised on the device, checkpoints save them
  // and a model file's names are held against them; HF's inv_freq is not persistent either.
  // Indexed by rope, then [short, long].
  std::vector<std::array<torch::Tensor, 2>> inverse_frequencies_;
  std::vector<double> attention_factors_;
  torch::Tensor last_load_balancing_loss_;
};
TORCH_MODULE(DecoderLm);

// A decoder ready to train: its parameters made on techniques.device, filled by `load`, or
// with none by init_weights() there; ckpt and fp8 as the techniques ask.
Model make_decoder_model(const DecoderShape& shape, const ModelTechniques& techniques, const WeightLoader& load = {});

}  // namespace gpubench
