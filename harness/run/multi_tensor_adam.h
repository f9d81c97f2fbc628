#pragma once
#include <unordered_map>
#include <vector>

#include <torch/torch.h>

namespace gpubench {

// Adam whose step updates every parameter in one multi-tensor pass instead of LibTorch's
// loop of ~10 small ops per parameter: `Foreach` with the _foreach_* ops (PyTorch's
// foreach=True path), `Fused` with at::_fused_adam_ (fused=True; CPU and CUDA kernels).
// Same math, hyper-parameters and state as torch::optim::Adam (no amsgrad, no weight
// decay here), kept in Adam's own AdamParamState so save/load and the checkpoint round
// trip are unchanged; the per-parameter step counts are also held as tensors, which the
// fused kernel reads.
class MultiTensorAdam final : public torch::optim::Adam {
 public:
  enum class Kernel { Foreach, Fused };
  MultiTensorAdam(const std::vector<torch::Tensor>& parameters, torch::optim::AdamOptions options, Kernel kernel);
  torch::Tensor step(LossClosure closure = nullptr) override;

 private:
  struct Lists {
    std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs, steps;
    std::vector<torch::optim::AdamParamState*> states;
  };
  Lists gather(const torch::optim::OptimizerParamGroup& group);
  void foreach_update(Lists& lists, const torch::optim::AdamOptions& options);

  Kernel kernel_;
  std::unordered_map<const c10::TensorImpl*, torch::Tensor> step_tensors_;
};

}  // namespace gpubench
