#include "workloads/decoder_moe.h"


namespace gpubench {
namespace {

// An expert's (or the shared expert's) shape: the decoder's gated MLP at its own width.
DecoderShape expert_shape(DecoderShape shape, std::int64_t width) {
  shape.intermediate = width;
  shape.mlp = MlpKind::Gated;
  shape.mlp_bias = false;
  return shape;
}

}  // namespace

void DecoderMoeImpl::reset() {
  const MoeShape& moe = shape.moe;
  gate = register_module("gate", FamilyLinear(shape.hidden, moe.experts, false));
  experts = register_module("experts", torch::nn::ModuleList());
  for (std::int64_t e = 0; e < moe.experts; ++e) experts->push_back(DecoderMlp(expert_shape(shape, moe.expert_intermediate)));
  if (moe.shared_intermediate > 0) {
    shared_expert = register_module("shared_expert", DecoderMlp(expert_shape(shape, moe.shared_intermediate)));
    shared_expert_gate = register_module("shared_expert_gate", FamilyLinear(shape.hidden, 1, false));
  }
}

torch::Tensor DecoderMoeImpl::forward(const torch::Tensor& x) {
  const MoeShape& moe = shape.moe;
  const auto flat = x.reshape({-1, shape.hidden});
  const auto logits = gate(flat);
  auto [weights, chosen] = torch::topk(torch::softmax(logits, -1, torch::kFloat32), moe.top_k, -1);
  if (moe.renormalize) weights = weights / weights.sum(-1, /*keepdim=*/true);
  if (moe.weights_in_logits_dtype) weights = weights.to(logits.scalar_type());
  const bool training = torch::GradMode::is_enabled();
  if (training) router_logits = logits;
  // Each token's k choices as (token, slot) rows sorted by expert: one GEMM per expert over
  // exactly its tokens, the weighted outputs added back by token.
  const auto flat_chosen = chosen.reshape({-1});
  const auto order = flat_chosen.argsort(/*stable=*/true);
  const auto counts = torch::bincount(flat_chosen, /*weights=*/{}, moe.experts);
  if (training) tokens_per_expert = tokens_per_expert.defined() ? tokens_per_expert + counts : counts;
  const auto token_of = order.div(moe.top_k, "floor");
  const auto routed_weights = weights.reshape({-1}).index_select(0, order).unsqueeze(1);
  const auto routed_input = flat.index_select(0, token_of);
  // The loop needs each expert's count on the host (one read a layer on a GPU; a grouped GEMM
  // with device offsets would not).
  const torch::Tensor host_counts = counts.to(torch::kCPU);
  const std::int64_t* first = host_counts.data_ptr<std::int64_t>();
  const std::vector<std::int64_t> sizes(first, first + moe.experts);
  const auto run_expert = [this](std::int64_t e, const torch::Tensor& rows) {
    return experts->ptr<DecoderMlpImpl>(static_cast<std::size_t>(e))->forward(rows);
  };
  torch::Tensor expert_rows;
  if (exchange) {
    expert_rows = run_experts_across_ranks(*exchange, routed_input, sizes, run_expert);
  } else {
    std::vector<torch::Tensor> outputs;
    std::int64_t start = 0;
    for (std::int64_t e = 0; e < moe.experts; ++e) {
      if (sizes[static_cast<std::size_t>(e)] == 0) continue;
      outputs.push_back(run_expert(e, routed_input.narrow(0, start, sizes[static_cast<std::size_t>(e)])));
      start += sizes[static_cast<std::size_t>(e)];
    }
    expert_rows = torch::cat(outputs);
  }
  // Summed in the input's dtype (fp32 under autocast), as HF adds each expert's share.
  const auto expert_out = (expert_rows * routed_weights).to(flat.scalar_type());
  auto out = torch::zeros_like(flat).index_add(0, token_of, expert_out);
  if (shared_expert)
    out = out + torch::sigmoid(shared_expert_gate(flat)) * shared_expert(flat);
  return out.view(x.sizes());
}

torch::Tensor load_balancing_loss(const std::vector<torch::Tensor>& router_logits, std::int64_t experts, std::int64_t top_k) {
  const auto logits = torch::cat(router_logits, 0);
  const auto probabilities = torch::softmax(logits, -1);
  const auto chosen = std::get<1>(torch::topk(probabilities, top_k, -1));
  const double rows = static_cast<double>(logits.size(0));
  const auto fraction = torch::bincount(chosen.reshape({-1}), {}, experts).to(probabilities.scalar_type()) / rows;
  return (fraction.detach() * probabilities.mean(0)).sum() * static_cast<double>(experts);
}

}  // namespace gpubench
