#include "workloads/decoder_moe.h"

#include <limits>

#include "workloads/grouped_experts.h"

namespace gpubench {
namespace {

// An expert's (or the shared expert's) shape: the decoder's gated MLP at its own width.
DecoderShape expert_shape(DecoderShape shape, std::int64_t width) {
  shape.intermediate = width;
  shape.mlp = MlpKind::Gated;
  shape.mlp_bias = false;
  return shape;
}

// gpt-oss's GLU over the interleaved [gate0, up0, gate1, up1, ...] projection (HF's
// GptOssExperts._apply_gate): gate clamped above, up to [-limit, limit], (up + 1) * gate *
// sigmoid(alpha * gate); the stacked layout is gpt-oss's and always computes it.
torch::Tensor clamped_glu(const torch::Tensor& gate_up, double limit, double alpha) {
  using torch::indexing::Slice;
  const auto gate = gate_up.index({Slice(), Slice(0, torch::indexing::None, 2)}).clamp_max(limit);
  const auto up = gate_up.index({Slice(), Slice(1, torch::indexing::None, 2)}).clamp(-limit, limit);
  return (up + 1) * (gate * torch::sigmoid(gate * alpha));
}

// DeepSeek-V3's group-limited choice (DeepseekV3TopkRouter): of `groups` groups of experts,
// the topk_groups whose two best scores sum highest stay eligible; the rest are -inf.
torch::Tensor limit_to_groups(const torch::Tensor& scores_for_choice, const MoeShape& moe) {
  const auto rows = scores_for_choice.size(0);
  const auto per_group = moe.experts / moe.groups;
  const auto group_scores = std::get<0>(scores_for_choice.view({rows, moe.groups, per_group}).topk(2, -1)).sum(-1);
  const auto group_index = std::get<1>(group_scores.topk(moe.topk_groups, -1, /*largest=*/true, /*sorted=*/false));
  const auto group_mask = torch::zeros_like(group_scores).scatter(1, group_index, 1.0);
  const auto score_mask = group_mask.unsqueeze(-1).expand({rows, moe.groups, per_group}).reshape({rows, moe.experts});
  return scores_for_choice.masked_fill(score_mask.logical_not(), -std::numeric_limits<double>::infinity());
}

std::vector<std::int64_t> on_host(const torch::Tensor& counts) {
  const torch::Tensor host = counts.to(torch::kCPU).contiguous();
  return {host.data_ptr<std::int64_t>(), host.data_ptr<std::int64_t>() + host.numel()};
}

}  // namespace

void StackedExpertsImpl::reset() {
  const MoeShape& moe = shape.moe;
  const std::int64_t e = moe.experts, h = shape.hidden, i = moe.expert_intermediate;
  gate_up_proj = register_parameter("gate_up_proj", torch::empty({e, h, 2 * i}));
  down_proj = register_parameter("down_proj", torch::empty({e, i, h}));
  if (moe.expert_bias) {
    gate_up_proj_bias = register_parameter("gate_up_proj_bias", torch::empty({e, 2 * i}));
    down_proj_bias = register_parameter("down_proj_bias", torch::empty({e, h}));
  }
}

void StackedExpertsImpl::init_weights() {
  torch::NoGradGuard no_grad;
  gate_up_proj.normal_(0.0, 0.02);
  down_proj.normal_(0.0, 0.02);
  if (gate_up_proj_bias.defined()) gate_up_proj_bias.zero_();
  if (down_proj_bias.defined()) down_proj_bias.zero_();
}

torch::Tensor StackedExpertsImpl::forward(const torch::Tensor& routed, const std::vector<std::int64_t>& sizes) {
  const MoeShape& moe = shape.moe;
  // Each expert's slice through one unbind: its backward stacks the slices' gradients into
  // one tensor (a select per expert would add E full-size zero tensors).
  const auto gate_up = gate_up_proj.unbind(0), down = down_proj.unbind(0);
  const auto gate_up_bias = moe.expert_bias ? gate_up_proj_bias.unbind(0) : std::vector<torch::Tensor>();
  const auto down_bias = moe.expert_bias ? down_proj_bias.unbind(0) : std::vector<torch::Tensor>();
  std::vector<torch::Tensor> outputs;
  std::int64_t start = 0;
  for (std::size_t e = 0; e < sizes.size(); ++e) {
    if (sizes[e] == 0) continue;
    const auto rows = routed.narrow(0, start, sizes[e]);
    start += sizes[e];
    auto hidden = rows.matmul(gate_up[e]);
    if (moe.expert_bias) hidden = hidden + gate_up_bias[e];
    hidden = clamped_glu(hidden, moe.swiglu_limit.value_or(std::numeric_limits<double>::infinity()), moe.swiglu_alpha);
    auto out = hidden.matmul(down[e]);
    if (moe.expert_bias) out = out + down_bias[e];
    outputs.push_back(out);
  }
  return torch::cat(outputs);
}

torch::Tensor StackedExpertsImpl::forward_grouped(const torch::Tensor& routed, const torch::Tensor& offsets,
                                                 const torch::Tensor& counts) {
  const MoeShape& moe = shape.moe;
  const torch::ScalarType dtype = expert_compute_dtype(routed);
  // The biases are added as the loop adds them under autocast (a 16-bit product plus an
  // fp32 bias gives fp32), each row its expert's.
  const auto expert_of = moe.expert_bias ? expert_of_rows(counts, routed.size(0)) : torch::Tensor();
  auto hidden = grouped_gemm(routed.to(dtype), gate_up_proj.to(dtype), offsets);
  if (moe.expert_bias) hidden = hidden + gate_up_proj_bias.index_select(0, expert_of);
  hidden = clamped_glu(hidden, moe.swiglu_limit.value_or(std::numeric_limits<double>::infinity()), moe.swiglu_alpha);
  auto out = grouped_gemm(hidden.to(dtype), down_proj.to(dtype), offsets);
  if (moe.expert_bias) out = out + down_proj_bias.index_select(0, expert_of);
  return out;
}

void MoeRouterImpl::reset() {
  weight = register_parameter("weight", torch::empty({experts, hidden}));
  if (with_bias) bias = register_parameter("bias", torch::empty({experts}));
  if (correction_bias) e_score_correction_bias = register_buffer("e_score_correction_bias", torch::zeros({experts}));
}

void MoeRouterImpl::init_weights() {
  torch::NoGradGuard no_grad;
  weight.normal_(0.0, 0.02);
  if (bias.defined()) bias.zero_();
  if (e_score_correction_bias.defined()) e_score_correction_bias.zero_();
}

void DecoderMoeImpl::reset() {
  const MoeShape& moe = shape.moe;
  gate = register_module("gate", MoeRouter(shape.hidden, moe.experts, moe.router_bias, moe.score_correction_bias));
  if (moe.layout == MoeShape::Experts::Stacked) {
    stacked = register_module("experts", StackedExperts(shape));
  } else {
    experts = register_module("experts", torch::nn::ModuleList());
    for (std::int64_t e = 0; e < moe.experts; ++e) experts->push_back(DecoderMlp(expert_shape(shape, moe.expert_intermediate)));
  }
  if (moe.shared_intermediate > 0) {
    shared_expert = register_module("shared_expert", DecoderMlp(expert_shape(shape, moe.shared_intermediate)));
    if (moe.shared_expert_gate) shared_expert_gate = register_module("shared_expert_gate", FamilyLinear(shape.hidden, 1, false));
  }
}

void DecoderMoeImpl::init_weights() { gate->init_weights(); }

void DecoderMoeImpl::keep_for_loss(const torch::Tensor& logits) {
  if (shape.moe.aux_loss_coef && torch::GradMode::is_enabled()) router_logits = logits;
}

Routing DecoderMoeImpl::route(const torch::Tensor& flat) {
  const MoeShape& moe = shape.moe;
  Routing routing;
  if (moe.router == MoeShape::Router::Sigmoid) {
    // DeepSeek-V3 scores in fp32 (its router casts the input and the weight).
    const auto logits = torch::linear(flat.to(torch::kFloat32), gate->weight.to(torch::kFloat32));
    keep_for_loss(logits);
    const auto scores = torch::sigmoid(logits);
    const torch::Tensor& correction = gate->e_score_correction_bias;
    auto for_choice = correction.defined() ? scores + correction : scores;
    if (moe.groups > 1) for_choice = limit_to_groups(for_choice, moe);
    routing.chosen = std::get<1>(for_choice.topk(moe.top_k, -1, /*largest=*/true, /*sorted=*/false));
    routing.weights = scores.gather(1, routing.chosen);
    if (moe.renormalize) routing.weights = routing.weights / (routing.weights.sum(-1, /*keepdim=*/true) + 1e-20);
    routing.weights = routing.weights * moe.routed_scaling;
    return routing;
  }
  const auto logits = gate(flat);
  keep_for_loss(logits);
  if (moe.router == MoeShape::Router::TopKSoftmax) {  // gpt-oss: softmax over the k best logits
    auto [top, chosen] = logits.topk(moe.top_k, -1);
    routing.weights = torch::softmax(top, 1, top.scalar_type());
    routing.chosen = chosen;
  } else {
    std::tie(routing.weights, routing.chosen) = torch::topk(torch::softmax(logits, -1, torch::kFloat32), moe.top_k, -1);
    if (moe.renormalize) routing.weights = routing.weights / routing.weights.sum(-1, /*keepdim=*/true);
    if (moe.weights_in_logits_dtype) routing.weights = routing.weights.to(logits.scalar_type());
  }
  if (moe.routed_scaling != 1.0) routing.weights = routing.weights * moe.routed_scaling;
  return routing;
}

torch::Tensor DecoderMoeImpl::per_expert_forward(std::int64_t first, const torch::Tensor& routed,
                                                 const std::vector<std::int64_t>& sizes) {
  std::vector<torch::Tensor> outputs;
  std::int64_t start = 0;
  // An expert without tokens still computes its empty slice: its weights then get a zero
  // gradient every backward, as the stacked layout's and the grouped GEMM's do, so every rank
  // of a sharded mode reduces the same units in the same order whatever its tokens chose
  // (and ep-K and ddp-N move them alike: Adam moves a zero gradient's weight by its
  // momentum, and skips an undefined one).
  for (std::size_t j = 0; j < sizes.size(); ++j) {
    auto* expert = experts->ptr<DecoderMlpImpl>(static_cast<std::size_t>(first) + j).get();
    outputs.push_back(expert->forward(routed.narrow(0, start, sizes[j])));
    start += sizes[j];
  }
  return torch::cat(outputs);
}

torch::Tensor DecoderMoeImpl::grouped_forward(std::int64_t first, const torch::Tensor& routed, const torch::Tensor& offsets) {
  std::vector<torch::Tensor> gate, up, down;
  for (std::int64_t j = 0; j < offsets.size(0); ++j) {
    const auto* expert = experts->ptr<DecoderMlpImpl>(static_cast<std::size_t>(first + j)).get();
    gate.push_back(expert->gate_proj->weight);
    up.push_back(expert->up_proj->weight);
    down.push_back(expert->down_proj->weight);
  }
  return grouped_gated_mlp(routed, offsets, gate, up, down, shape.activation);
}

torch::Tensor DecoderMoeImpl::compute_experts(std::int64_t first, const torch::Tensor& routed, const torch::Tensor& counts,
                                              const std::vector<std::int64_t>* sizes) {
  const std::int64_t width = shape.moe.expert_intermediate;
  const ExpertGemmChoice choice = choose_expert_gemms(gemms, routed, {shape.hidden, width, 2 * width});
  if (torch::GradMode::is_enabled()) computed_as = choice.why;
  if (choice.grouped) {
    const auto offsets = group_offsets(counts);
    return stacked ? stacked->forward_grouped(routed, offsets, counts) : grouped_forward(first, routed, offsets);
  }
  // The loop needs each expert's count on the host (one read a layer on a GPU).
  std::vector<std::int64_t> read;
  if (sizes == nullptr) sizes = &(read = on_host(counts));
  return stacked ? stacked->forward(routed, *sizes) : per_expert_forward(first, routed, *sizes);
}

torch::Tensor DecoderMoeImpl::forward(const torch::Tensor& x) {
  const MoeShape& moe = shape.moe;
  const auto flat = x.reshape({-1, shape.hidden});
  const Routing routing = route(flat);
  // Each token's k choices as (token, slot) rows sorted by expert, each expert's GEMMs over
  // exactly its tokens, the weighted outputs added back by token.
  const auto flat_chosen = routing.chosen.reshape({-1});
  const auto order = flat_chosen.argsort(/*stable=*/true);
  const auto counts = count_per_expert(flat_chosen, moe.experts);
  if (torch::GradMode::is_enabled()) tokens_per_expert = tokens_per_expert.defined() ? tokens_per_expert + counts : counts;
  const auto token_of = order.div(moe.top_k, "floor");
  const auto routed_weights = routing.weights.reshape({-1}).index_select(0, order).unsqueeze(1);
  const auto routed_input = flat.index_select(0, token_of);
  torch::Tensor computed;
  if (exchange) {  // ep-K: each rank runs its own experts over every rank's rows routed to them
    if (stacked) throw std::runtime_error(kStackedExpertParallel);
    // The all-to-all's splits are every expert's count, on the host.
    const std::vector<std::int64_t> sizes = on_host(counts);
    computed = run_experts_across_ranks(
        *exchange, routed_input, sizes,
        [this](std::int64_t first, const torch::Tensor& rows, const std::vector<std::int64_t>& local) {
          const auto local_counts = torch::tensor(local, torch::TensorOptions(torch::kInt64)).to(rows.device());
          exchange->before_experts(sparse_index);
          return exchange->after_experts(sparse_index, compute_experts(first, rows, local_counts, &local));
        });
  } else {
    computed = compute_experts(0, routed_input, counts, nullptr);
  }
  // Summed in the input's dtype (fp32 under autocast), as HF adds each expert's share.
  const auto expert_out = (computed * routed_weights).to(flat.scalar_type());
  auto out = torch::zeros_like(flat).index_add(0, token_of, expert_out);
  if (shared_expert) {
    const auto shared = shared_expert(flat);
    out = out + (shared_expert_gate ? torch::sigmoid(shared_expert_gate(flat)) * shared : shared);
  }
  return out.view(x.sizes());
}

torch::Tensor load_balancing_loss(const std::vector<torch::Tensor>& router_logits, std::int64_t experts, std::int64_t top_k) {
  const auto logits = torch::cat(router_logits, 0);
  const auto probabilities = torch::softmax(logits, -1);
  const auto chosen = std::get<1>(torch::topk(probabilities, top_k, -1));
  const double rows = static_cast<double>(logits.size(0));
  const auto fraction = count_per_expert(chosen.reshape({-1}), experts).to(probabilities.scalar_type()) / rows;
  return (fraction.detach() * probabilities.mean(0)).sum() * static_cast<double>(experts);
}

}  // namespace gpubench
