#include "harness/run/multi_tensor_adam.h"

#include <cmath>
#include <stdexcept>

namespace gpubench {

MultiTensorAdam::MultiTensorAdam(const std::vector<torch::Tensor>& parameters, torch::optim::AdamOptions options,
                                 Kernel kernel)
    : torch::optim::Adam(parameters, options), kernel_(kernel) {
  if (options.amsgrad() || options.weight_decay() != 0)
    throw std::invalid_argument("MultiTensorAdam: amsgrad and weight decay are not implemented");
}

MultiTensorAdam::Lists MultiTensorAdam::gather(const torch::optim::OptimizerParamGroup& group) {
  Lists lists;
  for (const auto& param : group.params()) {
    if (!param.grad().defined()) continue;
    auto& slot = state_[param.unsafeGetTensorImpl()];
    if (!slot) {
      auto fresh = std::make_unique<torch::optim::AdamParamState>();
      fresh->step(0);
      fresh->exp_avg(torch::zeros_like(param, torch::MemoryFormat::Preserve));
      fresh->exp_avg_sq(torch::zeros_like(param, torch::MemoryFormat::Preserve));
      slot = std::move(fresh);
    }
    auto& state = static_cast<torch::optim::AdamParamState&>(*slot);
    // The step count as a tensor on the parameter's device (the fused kernel reads it
    // there); made from the saved count after a load.
    auto& step = step_tensors_[param.unsafeGetTensorImpl()];
    if (!step.defined())
      step = torch::full({}, static_cast<double>(state.step()), torch::TensorOptions(torch::kFloat32).device(param.device()));
    lists.params.push_back(param);
    lists.grads.push_back(param.grad());
    lists.exp_avgs.push_back(state.exp_avg());
    lists.exp_avg_sqs.push_back(state.exp_avg_sq());
    lists.steps.push_back(step);
    lists.states.push_back(&state);
  }
  return lists;
}

// PyTorch's _multi_tensor_adam (torch/optim/adam.py), not capturable: every parameter of
// a group has taken the same number of steps, so the bias corrections are scalars.
void MultiTensorAdam::foreach_update(Lists& l, const torch::optim::AdamOptions& o) {
  const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
  const auto step = static_cast<double>(l.states.front()->step());
  const double bias_correction1 = 1 - std::pow(beta1, step);
  const double bias_correction2_sqrt = std::sqrt(1 - std::pow(beta2, step));
  at::_foreach_lerp_(l.exp_avgs, l.grads, 1 - beta1);
  at::_foreach_mul_(l.exp_avg_sqs, beta2);
  at::_foreach_addcmul_(l.exp_avg_sqs, l.grads, l.grads, 1 - beta2);
  auto denominators = at::_foreach_sqrt(l.exp_avg_sqs);
  at::_foreach_div_(denominators, bias_correction2_sqrt);
  at::_foreach_add_(denominators, o.eps());
  at::_foreach_addcdiv_(l.params, l.exp_avgs, denominators, -o.lr() / bias_correction1);
}

void MultiTensorAdam::fused_update(Lists& l, const torch::optim::AdamOptions& o,
                                   const std::optional<torch::Tensor>& grad_scale,
                                   const std::optional<torch::Tensor>& found_inf) {
  at::_fused_adam_(l.params, l.grads, l.exp_avgs, l.exp_avg_sqs, {}, l.steps, o.lr(), std::get<0>(o.betas()),
                   std::get<1>(o.betas()), o.weight_decay(), o.eps(), /*amsgrad=*/false, /*maximize=*/false, grad_scale,
                   found_inf);
}

torch::Tensor MultiTensorAdam::step(LossClosure closure) {
  torch::NoGradGuard no_grad;
  torch::Tensor loss;
  if (closure) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (auto& group : param_groups_) {
    Lists lists = gather(group);
    if (lists.params.empty()) continue;
    const auto& options = static_cast<const torch::optim::AdamOptions&>(group.options());
    for (auto* state : lists.states) state->step(state->step() + 1);
    at::_foreach_add_(lists.steps, 1);
    if (kernel_ == Kernel::Foreach)
      foreach_update(lists, options);
    else
      fused_update(lists, options, std::nullopt, std::nullopt);
  }
  return loss;
}

// PyTorch's _fused_adam with grad_scale and found_inf: the steps count up, the kernel
// skips the update where found_inf is set, and the counts come back down by found_inf, all
// on the device.
void MultiTensorAdam::step_scaled(const torch::Tensor& grad_scale, const torch::Tensor& found_inf) {
  if (kernel_ != Kernel::Fused)
    throw std::logic_error("MultiTensorAdam::step_scaled: only the fused kernel unscales; foreach needs unscaled gradients");
  torch::NoGradGuard no_grad;
  // The kernel and the step counts want 0-d tensors; the scaler keeps 1-element ones.
  const torch::Tensor scale = grad_scale.reshape({});
  const torch::Tensor inf = found_inf.reshape({});
  for (auto& group : param_groups_) {
    Lists lists = gather(group);
    if (lists.params.empty()) continue;
    const auto& options = static_cast<const torch::optim::AdamOptions&>(group.options());
    at::_foreach_add_(lists.steps, 1);
    fused_update(lists, options, scale, inf);
    at::_foreach_sub_(lists.steps, std::vector<torch::Tensor>(lists.steps.size(), inf));
  }
  // No read of `inf` here: the host's Adam state catches up in read_step_counts_from_device.
}

void MultiTensorAdam::read_step_counts_from_device() {
  for (auto& group : param_groups_)
    for (const auto& param : group.params()) {
      const auto step = step_tensors_.find(param.unsafeGetTensorImpl());
      const auto state = state_.find(param.unsafeGetTensorImpl());
      if (step == step_tensors_.end() || state == state_.end()) continue;
      static_cast<torch::optim::AdamParamState&>(*state->second).step(std::llround(step->second.item<double>()));
    }
}

}  // namespace gpubench
