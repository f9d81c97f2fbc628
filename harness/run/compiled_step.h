#pragma once
// The compile technique's step: forward, loss and backward in one call of the package that
// harness/run/compile_package.h made, with gpubench's own parameter tensors as its
// constants (user-managed: the package reads them where they live, so LibTorch's optimizer
// updates in place what the next call reads). No Python and no autograd in the step.
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "harness/run/compile_package.h"

namespace torch::inductor {
class AOTIModelPackageLoader;
}

namespace gpubench {

class CompiledTrainingStep {
 public:
  // Loads the package and binds `module`'s parameters and buffers to its constants by the
  // manifest's names. Throws std::runtime_error naming a tensor that is missing on either
  // side or of another shape or dtype. `module` must stay where it is (device, storage).
  CompiledTrainingStep(const CompiledPackage& package, torch::nn::Module& module);
  ~CompiledTrainingStep();
  CompiledTrainingStep(const CompiledTrainingStep&) = delete;
  CompiledTrainingStep& operator=(const CompiledTrainingStep&) = delete;

  // One step on a batch of the exported shape: sets every parameter's .grad to the loss's
  // gradient times `gradient_scale` (replacing what was there, as backward after zero_grad,
  // or added to it when `add`: a later micro-batch of accK) and returns the loss.
  torch::Tensor run(const torch::Tensor& data, const torch::Tensor& target, double gradient_scale = 1, bool add = false);

 private:
  std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader_;
  std::vector<torch::Tensor> gradient_targets_;  // the parameters, in the package's gradient order
  std::vector<std::int64_t> data_shape_, target_shape_;
};

}  // namespace gpubench
