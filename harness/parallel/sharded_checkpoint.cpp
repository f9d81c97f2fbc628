#include "harness/parallel/sharded_checkpoint.h"

namespace gpubench {

std::unique_ptr<torch::optim::Adam> consolidated_adam(ShardedDataParallel& sharded, torch::optim::Adam& sharded_optimizer,
                                                      bool keep) {
  torch::NoGradGuard no_grad;
  // The shards lead the optimizer's parameters (ep-K's experts may follow them).
  const auto& stepped_parameters = sharded_optimizer.param_groups().at(0).params();
  const std::vector<torch::Tensor> shards(stepped_parameters.begin(),
                                          stepped_parameters.begin() + static_cast<std::ptrdiff_t>(sharded.layout().units.size()));
  const auto& options = static_cast<const torch::optim::AdamOptions&>(sharded_optimizer.param_groups().at(0).options());
  std::vector<torch::Tensor> exp_avgs, exp_avg_sqs;
  std::int64_t step = 0;
  bool stepped = true;
  for (const auto& shard : shards) {
    const auto found = sharded_optimizer.state().find(shard.unsafeGetTensorImpl());
    if (found == sharded_optimizer.state().end()) {
      stepped = false;  // every shard steps together: none has state before the first step
      exp_avgs.push_back(torch::zeros_like(shard));
      exp_avg_sqs.push_back(torch::zeros_like(shard));
      continue;
    }
    const auto& state = static_cast<const torch::optim::AdamParamState&>(*found->second);
    exp_avgs.push_back(state.exp_avg());
    exp_avg_sqs.push_back(state.exp_avg_sq());
    step = state.step();
  }
  const auto means = sharded.gather_member_values(exp_avgs, keep);
  const auto squares = sharded.gather_member_values(exp_avg_sqs, keep);
  if (!keep) return nullptr;
  auto adam = std::make_unique<torch::optim::Adam>(sharded.parameters(), options);
  if (!stepped) return adam;
  const ShardLayout& layout = sharded.layout();
  for (std::size_t unit = 0; unit < layout.units.size(); ++unit)
    for (std::size_t slot = 0; slot < layout.units[unit].members.size(); ++slot) {
      const torch::Tensor& parameter = sharded.parameters()[layout.units[unit].members[slot]];
      auto state = std::make_unique<torch::optim::AdamParamState>();
      state->step(step);
      // Views of the gathered unit, shaped and strided as the parameter: no second copy.
      state->exp_avg(means[unit][slot]);
      state->exp_avg_sq(squares[unit][slot]);
      adam->state()[parameter.unsafeGetTensorImpl()] = std::move(state);
    }
  return adam;
}

}  // namespace gpubench
