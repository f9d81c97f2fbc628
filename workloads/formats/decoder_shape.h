#pragma once
// The one decoder's options: what differs between the decoder families gpubench builds
// (Llama, Mistral, Qwen2/3, Gemma 2/3, Phi-3, OLMo 2, SmolLM3, Granite, StarCoder2,
// GPT-NeoX), as plain resolved data. A family is a reader of its config.json that fills
// these (workloads/formats/hf_family_readers.cpp) and a weight-name map; the model
// (workloads/decoder.h) reads only these fields, never the family's name. The mixtures of
// experts (Mixtral, Qwen2/3-MoE, OLMoE, gpt-oss, DeepSeek-V3) add MoeShape and, DeepSeek,
// LatentAttentionShape.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

// The MLP's activation, as a function: HF spells each several ways (hidden_act).
enum class DecoderActivation {
  Silu,      // silu, swish
  GeluTanh,  // 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))): gelu_new, gelu_pytorch_tanh, ...
  GeluErf,   // exact: gelu, gelu_python
};
const char* activation_name(DecoderActivation activation);

// Rotary position embedding as transformers 5.17's modeling_rope_utils computes its inverse
// frequencies and attention factor (workloads/decoder_rope.cpp).
struct RopeShape {
  enum class Type { Default, Linear, Llama3, Yarn, LongRope };
  Type type = Type::Default;
  double theta = 10000.0;
  // The share of a head's channels that rotate (the first int(head_dim * factor)).
  double partial_rotary_factor = 1.0;
  double factor = 1.0;  // linear, llama3, yarn, longrope (its context over the original, unless written)
  double low_freq_factor = 1.0, high_freq_factor = 4.0;  // llama3
  std::int64_t original_max_positions = 0;              // llama3, yarn, longrope
  double beta_fast = 32.0, beta_slow = 1.0;             // yarn
  std::optional<double> mscale, mscale_all_dim;         // yarn (DeepSeek's spelling)
  bool truncate = true;                                  // yarn: round the correction range
  std::optional<double> attention_factor;               // yarn, longrope: as written, else derived
  std::vector<double> short_factor, long_factor;        // longrope, one per rotated pair

  std::string type_name() const;
  nlohmann::json describe() const;
};

enum class NormKind {
  Rms,          // w * (x / rms(x)).to(x's dtype): Llama's order
  RmsWeightFp32,  // (w * x / rms(x)).to(x's dtype): OLMo 2's, the weight applied in fp32
  RmsOnePlus,   // (x / rms(x) * (1 + w)).to(x's dtype), all in fp32: Gemma's (w starts at 0)
  LayerNorm,    // with a bias
};
const char* norm_name(NormKind kind);

// Where a layer's norms sit. Pre: h = x + attn(n1(x)), y = h + mlp(n2(h)). Post (OLMo 2):
// h = x + n1(attn(x)), y = h + n2(mlp(h)). Sandwich (Gemma): both, four norms.
enum class NormPlacement { Pre, Post, Sandwich };
const char* placement_name(NormPlacement placement);

// Norms on the queries and keys before RoPE: per head over head_dim (Qwen3, Gemma 3) or over
// the whole projection (OLMo 2).
enum class QkNorm { None, PerHead, FullWidth };

// How q, k and v come out of the checkpoint's projections: three matrices; one fused matrix
// whose rows are all q, then all k, then all v (Phi-3's qkv_proj); one fused matrix whose
// rows are head by head [q_h, k_h, v_h] (GPT-NeoX's query_key_value).
enum class QkvLayout { Separate, FusedBlocked, FusedPerHead };

// Gated: down(act(gate(x)) * up(x)), gate and up apart or fused as [gate; up] (Phi-3).
// Plain: down(act(up(x))) (StarCoder2's c_fc/c_proj, GPT-NeoX's dense_h_to_4h/4h_to_h).
enum class MlpKind { Gated, GatedFused, Plain };

// One layer's attention: a window of keys (query i sees keys i - W < j <= i), and which of
// the shape's RoPEs it applies (-1: none, SmolLM3's no-RoPE layers).
struct LayerAttention {
  std::optional<std::int64_t> window;
  int rope = 0;
};

// A mixture of experts in place of the MLP on its sparse layers (Mixtral, Qwen2/3-MoE, OLMoE,
// gpt-oss, DeepSeek-V3): a router scores every token against `experts`, the top_k are kept
// and weighted, each kept expert (a gated MLP of `expert_intermediate`) computes the token;
// dropless, every token reaches its k. A shared expert adds its output for every token.
struct MoeShape {
  // How the router turns its logits into the k choices and their weights.
  enum class Router {
    Softmax,      // softmax in fp32 over every expert, then the top k (Mixtral, Qwen, OLMoE)
    TopKSoftmax,  // the top k logits, then a softmax over those k in the logits' dtype (gpt-oss)
    // sigmoid scores in fp32; the choice by score + e_score_correction_bias within the
    // topk_groups best of `groups` groups (a group's worth: its two best), the weights the
    // chosen scores (renormalised where `renormalize`) (DeepSeek-V3)
    Sigmoid,
  };
  // How the checkpoint holds the experts: one gated MLP each (experts.E.gate_proj/up_proj/
  // down_proj, [out, in]), or stacked in three 3-D tensors as gpt-oss keeps them
  // (experts.gate_up_proj [E, hidden, 2I] with gate and up interleaved on the last dim,
  // experts.down_proj [E, I, hidden]: x @ W).
  enum class Experts { PerExpert, Stacked };

  std::int64_t experts = 0;  // 0: no experts, every layer dense
  std::int64_t top_k = 2;
  std::int64_t expert_intermediate = 0;
  Router router = Router::Softmax;
  bool router_bias = false;            // the router Linear has a bias (gpt-oss)
  bool score_correction_bias = false;  // Sigmoid: e_score_correction_bias, a buffer the checkpoint holds
  std::int64_t groups = 1, topk_groups = 1;  // Sigmoid: group-limited choice (n_group, topk_group)
  double routed_scaling = 1.0;               // the weights times this (routed_scaling_factor)
  bool renormalize = false;
  // The routing weights cast back to the router logits' dtype (Qwen, OLMoE) or kept in fp32
  // (Mixtral): they differ under autocast only.
  bool weights_in_logits_dtype = true;
  Experts layout = Experts::PerExpert;
  bool expert_bias = false;  // Stacked: gate_up_proj_bias [E, 2I], down_proj_bias [E, hidden]
  // Stacked (gpt-oss's GLU in place of act(gate) * up): gate clamped above at the limit, up
  // to [-limit, limit] (nullopt: unclamped), then (up + 1) * gate * sigmoid(alpha * gate).
  std::optional<double> swiglu_limit;
  double swiglu_alpha = 1.702;
  std::int64_t shared_intermediate = 0;  // 0: no shared expert
  bool shared_expert_gate = true;        // sigmoid(shared_expert_gate(x)) scales it (Qwen2-MoE; not DeepSeek)
  // HF's loss with output_router_logits: cross-entropy + coef x the load-balancing loss over
  // every sparse layer's router logits (Switch's E * sum_e f_e P_e); nullopt: cross-entropy.
  std::optional<double> aux_loss_coef;
  std::vector<bool> sparse;  // per layer; empty: every layer
};

// Multi-head latent attention (DeepSeek-V2/V3) in place of grouped-query attention: queries
// from hidden (q_proj) or through a rank-q_lora_rank bottleneck with its RMSNorm (q_a_proj,
// q_a_layernorm, q_b_proj); keys and values from a rank-kv_lora_rank latent (kv_a_proj_with_mqa,
// kv_a_layernorm, kv_b_proj) plus one RoPE'd key head of qk_rope_head_dim shared by every
// head. A head's query and key are [nope | rope] channels, its value v_head_dim.
struct LatentAttentionShape {
  std::int64_t q_lora_rank = 0;  // 0: no bottleneck (q_lora_rank null)
  std::int64_t kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  double norm_eps = 1e-6;  // the two latent norms': DeepseekV3RMSNorm's default, not rms_norm_eps
  std::int64_t qk_head_dim() const { return qk_nope_head_dim + qk_rope_head_dim; }
};

struct DecoderShape {
  std::string model_type = "llama";  // what the config said, for the row
  std::int64_t vocab = 32000, hidden = 4096, intermediate = 11008, layers = 32, heads = 32, kv_heads = 32,
               head_dim = 128, max_positions = 2048;
  double norm_eps = 1e-6;
  NormKind norm = NormKind::Rms;
  NormPlacement placement = NormPlacement::Pre;
  bool parallel_residual = false;  // y = x + attn(n1(x)) + mlp(n2(x)) (GPT-NeoX)
  QkNorm qk_norm = QkNorm::None;
  QkvLayout qkv_layout = QkvLayout::Separate;
  MlpKind mlp = MlpKind::Gated;
  DecoderActivation activation = DecoderActivation::Silu;
  bool qkv_bias = false, o_bias = false, mlp_bias = false;
  // Attention scores are q k^T * attention_scale (nullopt: 1/sqrt(head_dim)), then, with a
  // softcap c, c * tanh(s / c) before the mask (Gemma 2).
  std::optional<double> attention_scale;
  std::optional<double> attention_softcap;
  double embedding_scale = 1.0;      // the embeddings times this (Gemma: sqrt(hidden); Granite)
  double residual_multiplier = 1.0;  // each branch's output times this before its add (Granite)
  double logits_divisor = 1.0;       // logits / this (Granite's logits_scaling)
  std::optional<double> final_softcap;  // logits -> c * tanh(logits / c) (Gemma 2)
  std::vector<RopeShape> ropes = {RopeShape{}};  // the RoPEs layers choose from (Gemma 3: one per layer type)
  std::vector<LayerAttention> layer_attention;   // one per layer; empty: every layer full, rope 0
  bool tie_word_embeddings = false;
  std::optional<std::int64_t> pad_token_id;  // its embedding row gets no gradient, as HF's padding_idx
  // A learned logit per head in every query's softmax denominator, dropped after it (gpt-oss's
  // self_attn.sinks): attention computed as HF's eager one.
  bool attention_sinks = false;
  // RoPE on pairs of adjacent channels (x0, x1), (x2, x3), ..., the result de-interleaved as
  // [evens' rotation | odds' rotation] (DeepSeek's rope_interleave); else the half-split pairs.
  // Latent attention's RoPE head reads it (no grouped-query family has it).
  bool rope_interleave = false;
  // Set: multi-head latent attention, head_dim then its qk_rope_head_dim (the RoPE's width).
  std::optional<LatentAttentionShape> latent;
  MoeShape moe;

  // Llama-3.2-1B (meta-llama/Llama-3.2-1B config.json): 1,235,814,400 parameters.
  static DecoderShape llama_3_2_1b();
  // Layer i's attention (its window and RoPE).
  LayerAttention attention_of(std::int64_t layer) const;
  std::int64_t rotary_dim(int rope) const;  // the rotated channels of a head under ropes[rope]
  std::int64_t norms_per_layer() const;
  bool sparse_layer(std::int64_t layer) const;  // routed experts in place of the MLP
  // The parameters a token's forward multiplies by (a sparse layer's router, its k routed and
  // shared experts; every dense part): MoE FLOPs count these, the "active" parameters.
  std::int64_t active_parameters() const;
  // Every sparse layer's routed experts (not the router nor a shared expert): what ep-K splits.
  std::int64_t routed_expert_parameters() const;
  std::int64_t sparse_layers() const;
  // Trainable parameters as HF counts them, a tied head once; UsageError-free: the reader
  // refuses a config whose count overflows (checked_parameters).
  std::int64_t parameters() const;
  // The same, nullopt when it overflows 64 bits.
  std::optional<std::int64_t> checked_parameters() const;
  // The parameters only looked up (an untied input embedding): not a matmul's.
  std::int64_t lookup_parameters() const { return tie_word_embeddings ? 0 : vocab * hidden; }
  nlohmann::json describe() const;
};

}  // namespace gpubench
