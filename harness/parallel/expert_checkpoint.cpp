#include "harness/parallel/expert_checkpoint.h"

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
  std::vector<torch::Tensor> means, squares;
  std::int64_t step = 0;
  bool stepped = false;
  for (const auto& parameter : experts.local_parameters())
    if (const auto* state = state_of(&trained, parameter)) {
      stepped = true;
      step = state->step();
    }
  for (const auto& parameter : expert_parameters) {
    const auto* state = state_of(&trained, parameter);
    means.push_back(state ? state->exp_avg() : torch::zeros_like(parameter));
    squares.push_back(state ? state->exp_avg_sq() : torch::zeros_like(parameter));
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
