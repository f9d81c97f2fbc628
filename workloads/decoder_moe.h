#pragma once
// The one decoder's mixture-of-experts block (MoeShape in workloads/formats/decoder_shape.h),
// as transformers 5.17 computes Mixtral's, Qwen2/3-MoE's, OLMoE's, gpt-oss's and DeepSeek-V3's:
// a router (softmax over every expert then the top k; the top k logits then their softmax;
// or DeepSeek's group-limited sigmoid choice), and each expert a gated MLP computed over the
// tokens routed to it (the dropless token-choice form): one torch::_grouped_mm over every
// expert where LibTorch fuses it, else one GEMM per expert (workloads/grouped_experts.h; HF's
// grouped_mm gives the same numbers). Parameter names are the checkpoints' (mlp.gate, mlp.experts.E.
// gate_proj/up_proj/down_proj or gpt-oss's stacked mlp.experts.gate_up_proj/down_proj and
// their biases, mlp.shared_expert, mlp.shared_expert_gate; a family's map renames them).
#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "workloads/decoder.h"
#include "workloads/expert_exchange.h"
#include "workloads/workload.h"

namespace gpubench {

// gpt-oss's experts as its checkpoint holds them: gate_up_proj [E, hidden, 2I] (gate and up
// interleaved on the last dim), down_proj [E, I, hidden], each applied as x @ W (+ bias),
// between them gpt-oss's GLU (clamped at swiglu_limit where the shape has one).
struct StackedExpertsImpl : torch::nn::Cloneable<StackedExpertsImpl> {
  explicit StackedExpertsImpl(DecoderShape shape) : shape(std::move(shape)) { reset(); }
  void reset() override;
  void init_weights();  // HF's: N(0, 0.02), biases 0
  // `routed` [rows, hidden] sorted by expert, `sizes` each expert's rows: [rows, hidden].
  torch::Tensor forward(const torch::Tensor& routed, const std::vector<std::int64_t>& sizes);
  // The same through two grouped GEMMs: `offsets` each expert's end row, `counts` its rows
  // (both on the rows' device).
  torch::Tensor forward_grouped(const torch::Tensor& routed, const torch::Tensor& offsets, const torch::Tensor& counts);
  DecoderShape shape;
  torch::Tensor gate_up_proj, gate_up_proj_bias, down_proj, down_proj_bias;
};
TORCH_MODULE(StackedExperts);

// The router (HF's mlp.gate): logits = x W^T (+ bias: gpt-oss), and DeepSeek's
// e_score_correction_bias, a buffer the checkpoint holds (added to the scores for the choice
// only; no gradient). One module registering all three in reset(), so that a clone (dp's
// replicas) has them.
struct MoeRouterImpl : torch::nn::Cloneable<MoeRouterImpl> {
  MoeRouterImpl(std::int64_t hidden, std::int64_t experts, bool with_bias, bool correction_bias)
      : hidden(hidden), experts(experts), with_bias(with_bias), correction_bias(correction_bias) {
    reset();
  }
  void reset() override;
  void init_weights();  // weight N(0, 0.02), bias and correction 0
  torch::Tensor forward(const torch::Tensor& x) { return torch::linear(x, weight, bias); }
  std::int64_t hidden, experts;
  bool with_bias, correction_bias;
  torch::Tensor weight, bias, e_score_correction_bias;
};
TORCH_MODULE(MoeRouter);

// The router's choice for each token: `chosen` [tokens, k] experts, `weights` [tokens, k].
struct Routing {
  torch::Tensor weights, chosen;
};

struct DecoderMoeImpl : torch::nn::Cloneable<DecoderMoeImpl> {
  explicit DecoderMoeImpl(DecoderShape shape) : shape(std::move(shape)) { reset(); }
  void reset() override;
  void init_weights();  // the router's (the experts' Linear layers are the model's)
  torch::Tensor forward(const torch::Tensor& x);
  Routing route(const torch::Tensor& flat);
  DecoderShape shape;
  MoeRouter gate{nullptr};
  FamilyLinear shared_expert_gate{nullptr};
  torch::nn::ModuleList experts{nullptr};  // PerExpert
  StackedExperts stacked{nullptr};         // Stacked, registered as "experts"
  DecoderMlp shared_expert{nullptr};
  // The router's logits of the last forward that kept a graph ([tokens, experts]), for the
  // load-balancing loss; undefined once taken.
  torch::Tensor router_logits;
  // Top-k slots each expert took, summed over the forwards that kept a graph (the training
  // steps'), for the row's load; on the device, read once at the end.
  torch::Tensor tokens_per_expert;
  // Expert parallel: the group this layer's experts are split over (each rank runs only
  // its own, on every rank's tokens routed to them); null: every expert here.
  std::shared_ptr<ExpertExchange> exchange;
  std::size_t sparse_index = 0;  // this layer's place among the model's sparse layers
  // Grouped GEMMs or a loop (ModelTechniques::expert_gemms), and what the last training
  // forward ran as, with why (the row's moe.experts_computed_as).
  ExpertGemms gemms = ExpertGemms::Auto;
  const char* computed_as = nullptr;  // a literal of choose_expert_gemms; null before a training forward

 private:
  void keep_for_loss(const torch::Tensor& logits);  // with a load-balancing loss, while training
  // Experts [first, first + counts.size(0)) over `routed`, sorted by expert; `sizes` the
  // counts on the host where the caller has them (the loop reads them there otherwise).
  torch::Tensor compute_experts(std::int64_t first, const torch::Tensor& routed, const torch::Tensor& counts,
                                const std::vector<std::int64_t>* sizes);
  torch::Tensor per_expert_forward(std::int64_t first, const torch::Tensor& routed, const std::vector<std::int64_t>& sizes);
  torch::Tensor grouped_forward(std::int64_t first, const torch::Tensor& routed, const torch::Tensor& offsets);
};
TORCH_MODULE(DecoderMoe);

// Why ep-K does not take gpt-oss's stacked experts: one tensor holds every expert, and ep
// splits and reduces experts as tensors of their own.
inline constexpr const char* kStackedExpertParallel =
    "ep-K: gpt-oss's stacked experts (one gate_up_proj and one down_proj for every expert) are not split over ranks "
    "yet; run it without ep";

// HF's load_balancing_loss_func over the router logits of every sparse layer (each
// [tokens, experts]): E * sum_e f_e * P_e, f_e the share of top-k slots that chose expert e
// (no gradient; it sums to k), P_e the mean router probability of e, over every layer's
// tokens together.
torch::Tensor load_balancing_loss(const std::vector<torch::Tensor>& router_logits, std::int64_t experts, std::int64_t top_k);

}  // namespace gpubench
