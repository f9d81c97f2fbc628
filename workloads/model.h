#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <torch/nn/parallel/data_parallel.h>

#include "workloads/expert_exchange.h"
#include "workloads/segment_runner.h"

namespace gpubench {

// A workload's network, type-erased for the trainer: the module (parameters, to(),
// save/load) and its forward. Models are torch::nn::Cloneable so that DataParallel can
// replicate them (`data_parallel_forward`, CUDA devices only).
struct Model {
  std::shared_ptr<torch::nn::Module> module;
  std::function<torch::Tensor(const torch::Tensor&)> forward;
  std::function<torch::Tensor(const torch::Tensor&, const std::vector<torch::Device>&)> data_parallel_forward;
  // The units of sharding (DESIGN.md, "Sharding is a parallel mode"), in forward order: the
  // modules the forward runs through its SegmentRunner (blocks, stages, layers). What no
  // unit holds (embeddings, the head, a final norm) is the root unit. Empty: one unit.
  std::vector<std::shared_ptr<torch::nn::Module>> units;
  // Points the forward's SegmentRunner at a sharded run's hooks (null: none again). Unset
  // for a model without units.
  std::function<void(UnitHooks*)> set_unit_hooks;
  // What the model adds to the workload's loss from its last forward (a mixture of experts'
  // load-balancing loss times its coefficient, as HF adds it to the loss it returns), or an
  // undefined tensor; unset for models without one. The trainer adds it inside the forward
  // phase, so accumulation, loss scaling and the loss curve treat it as HF's loss.
  std::function<torch::Tensor()> auxiliary_loss;
  // What the model says of the training it went through, for the row (a mixture of experts'
  // load: tokens per expert); unset for models with nothing to say.
  std::function<nlohmann::json()> run_report;
  // A mixture of experts' routed experts, for expert parallel (ep-K): per sparse layer, per
  // expert, that expert's parameters. Empty for a model without experts.
  std::vector<std::vector<std::vector<torch::Tensor>>> expert_parameters;
  // Points every sparse layer at an exchange that runs its experts across the ranks of a
  // group (null: on this rank again). Unset for a model without experts.
  std::function<void(std::shared_ptr<ExpertExchange>)> set_expert_exchange;
  std::int64_t parameter_count() const;
};

// Builds a Model from a concrete module holder (Mlp, Cnn, Transformer).
template <class Holder>
Model wrap_model(Holder holder) {
  Model model;
  model.module = holder.ptr();
  model.forward = [holder](const torch::Tensor& input) mutable { return holder->forward(input); };
  model.data_parallel_forward = [holder](const torch::Tensor& input, const std::vector<torch::Device>& devices) mutable {
    // Replicates the module onto every device each call: LibTorch's data_parallel is
    // known to be slow for this reason, and the report shows it rather than hiding it.
    return torch::nn::parallel::data_parallel(holder, input, devices, devices.front());
  };
  return model;
}

// Declares `units` (each a segment `holder`'s SegmentRunner runs, in forward order) as the
// model's units of sharding.
template <class Holder>
void declare_units(Model& model, Holder holder, std::vector<std::shared_ptr<torch::nn::Module>> units) {
  model.units = std::move(units);
  model.set_unit_hooks = [holder](UnitHooks* hooks) mutable { holder->segments.hooks = hooks; };
}

}  // namespace gpubench
