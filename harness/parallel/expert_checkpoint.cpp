#include "harness/parallel/expert_checkpoint.h"

#include <unordered_map>
#include <unordered_set>

namespace gpubench {
namespace {

const torch::optim::AdamParamState* state_of(torch::optim::Adam* optimizer, const torch::Tensor& parameter) {
  if (optimizer == nullptr) return nullptr;
  const auto found = optimizer->state().find(parameter.unsafeGetTensorImpl());
  return found == optimizer->state().end() ? nullptr : static_cast<const torch::optim::AdamParamState*>(found->second.get());
}

}  // namespace

std::unique_ptr<torch::optim::Adam> whole_adam_with_experts(ExpertParallel& experts, const Model& model,
                                                            torch::optim::Adam& trained, torch::optim::Adam* dense, bool keep) {
  torch::NoGradGuard no_grad;
  const auto& options = static_cast<const torch::optim::AdamOptions&>(trained.param_groups().at(0).options());
  // Each expert's moments: its holder's, zeros elsewhere until shared. Every expert steps
  // together with the rest: none has state before the first step.
  const auto& expert_parameters = experts.all_expert_parameters();
  std::int64_t step = 0;
  bool stepped = false;
  for (const auto& parameter : experts.optimizer_parameters())
    if (const auto* state = state_of(&trained, parameter)) {
      stepped = true;
      step = state->step();
    }
  // The held experts' moments whole (gathered from the replicas' shards where fsdp split
  // them), by parameter.
  const auto moment = [&](bool mean) {
    return experts.held_values([&](const torch::Tensor& parameter) {
      const auto* state = state_of(&trained, parameter);
      return state == nullptr ? torch::Tensor() : (mean ? state->exp_avg() : state->exp_avg_sq());
    });
  };
  const std::vector<torch::Tensor> held_means = moment(true), held_squares = moment(false);
  std::unordered_map<const c10::TensorImpl*, std::size_t> held_index;
  for (std::size_t i = 0; i < experts.local_parameters().size(); ++i)
    held_index[experts.local_parameters()[i].unsafeGetTensorImpl()] = i;
  std::vector<torch::Tensor> means, squares;
  for (const auto& parameter : expert_parameters) {
    const auto found = held_index.find(parameter.unsafeGetTensorImpl());
    const bool held = found != held_index.end() && held_means[found->second].defined();
    means.push_back(held ? held_means[found->second] : torch::zeros_like(parameter));
    squares.push_back(held ? held_squares[found->second] : torch::zeros_like(parameter));
  }
  experts.share_from_holders(means);
  experts.share_from_holders(squares);
  if (!keep) return nullptr;
  auto whole = std::make_unique<torch::optim::Adam>(model.module->parameters(), options);
  std::unordered_set<const c10::TensorImpl*> expert_set;
  for (const auto& parameter : expert_parameters) expert_set.insert(parameter.unsafeGetTensorImpl());
  for (const auto& parameter : model.module->parameters()) {
    if (expert_set.count(parameter.unsafeGetTensorImpl()) > 0) continue;
    const auto* state = state_of(dense != nullptr ? dense : &trained, parameter);
    if (state != nullptr) whole->state()[parameter.unsafeGetTensorImpl()] = std::make_unique<torch::optim::AdamParamState>(*state);
  }
  if (!stepped) return whole;
  for (std::size_t i = 0; i < expert_parameters.size(); ++i) {
    auto state = std::make_unique<torch::optim::AdamParamState>();
    state->step(step);
    state->exp_avg(means[i]);
    state->exp_avg_sq(squares[i]);
    whole->state()[expert_parameters[i].unsafeGetTensorImpl()] = std::move(state);
  }
  return whole;
}

}  // namespace gpubench
