#pragma once
// The one decoder's mixture-of-experts block (MoeShape in workloads/formats/decoder_shape.h),
// as transformers 5.17 computes Mixtral's, Qwen2/3-MoE's and OLMoE's: a router without bias,
// softmax in fp32 over every expert, the top k kept (renormalised where the family does), and
// each expert a gated MLP computed over the tokens routed to it, one GEMM per expert (the
// dropless token-choice form; HF's grouped_mm gives the same numbers). Parameter names are
// the checkpoints' (mlp.gate, mlp.experts.E.gate_proj/up_proj/down_proj, mlp.shared_expert,
// mlp.shared_expert_gate; Mixtral's renamed by its family's map).
#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "workloads/decoder.h"
#include "workloads/expert_exchange.h"

namespace gpubench {

struct DecoderMoeImpl : torch::nn::Cloneable<DecoderMoeImpl> {
  explicit DecoderMoeImpl(DecoderShape shape) : shape(std::move(shape)) { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x);
  DecoderShape shape;
  FamilyLinear gate{nullptr}, shared_expert_gate{nullptr};
  torch::nn::ModuleList experts{nullptr};
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
};
TORCH_MODULE(DecoderMoe);

// HF's load_balancing_loss_func over the router logits of every sparse layer (each
// [tokens, experts]): E * sum_e f_e * P_e, f_e the share of top-k slots that chose expert e
// (no gradient; it sums to k), P_e the mean router probability of e, over every layer's
// tokens together.
torch::Tensor load_balancing_loss(const std::vector<torch::Tensor>& router_logits, std::int64_t experts, std::int64_t top_k);

}  // namespace gpubench
