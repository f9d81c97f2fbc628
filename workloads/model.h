#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include <torch/nn/parallel/data_parallel.h>

namespace gpubench {

// A workload's network, type-erased for the trainer: the module (parameters, to(),
// save/load) and its forward. Models are torch::nn::Cloneable so that DataParallel can
// replicate them (`data_parallel_forward`, CUDA devices only).
struct Model {
  std::shared_ptr<torch::nn::Module> module;
  std::function<torch::Tensor(const torch::Tensor&)> forward;
  std::function<torch::Tensor(const torch::Tensor&, const std::vector<torch::Device>&)> data_parallel_forward;
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

}  // namespace gpubench
