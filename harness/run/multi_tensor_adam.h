#pragma once
#include <unordered_map>
#include <vector>

#include <torch/torch.h>

#include "harness/run/amp_scaling_optimizer.h"

namespace gpubench {

// Adam whose step updates every parameter in one multi-tensor pass instead of LibTorch's
// loop of ~10 small ops per parameter: `Foreach` with the _foreach_* ops (PyTorch's
// foreach=True path), `Fused` with at::_fused_adam_ (fused=True; CPU and CUDA kernels).
// Same math, hyper-parameters and state as torch::optim::Adam (no amsgrad, no weight
// decay here), kept in Adam's own AdamParamState so save/load and the checkpoint round
// trip are unchanged; the per-parameter step counts are also held as tensors on the
// parameter's device, which the fused kernel reads (so a step can run inside a CUDA Graph).
// The fused kernel also takes a GradScaler's scale and inf flag (AmpScalingOptimizer).
class MultiTensorAdam final : public torch::optim::Adam, public AmpScalingOptimizer {
 public:
  enum class Kernel { Foreach, Fused };
  MultiTensorAdam(const std::vector<torch::Tensor>& parameters, torch::optim::AdamOptions options, Kernel kernel);
  torch::Tensor step(LossClosure closure = nullptr) override;

  bool supports_amp_scaling() const override { return kernel_ == Kernel::Fused; }
  // Fused only: throws std::logic_error for the foreach kernel (the scaler unscales first).
  // Advances only the device step counts (a skipped step takes its count back there).
  void step_scaled(const torch::Tensor& grad_scale, const torch::Tensor& found_inf) override;

  // Copies the device step counts into Adam's state, which save() writes: a step replayed
  // from a CUDA Graph, or scaled (step_scaled), advances only the device counts.
  void read_step_counts_from_device();

 private:
  struct Lists {
    std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs, steps;
    std::vector<torch::optim::AdamParamState*> states;
  };
  Lists gather(const torch::optim::OptimizerParamGroup& group);
  void foreach_update(Lists& lists, const torch::optim::AdamOptions& options);
  void fused_update(Lists& lists, const torch::optim::AdamOptions& options, const std::optional<torch::Tensor>& grad_scale,
                    const std::optional<torch::Tensor>& found_inf);

  Kernel kernel_;
  std::unordered_map<const c10::TensorImpl*, torch::Tensor> step_tensors_;
};

}  // namespace gpubench
