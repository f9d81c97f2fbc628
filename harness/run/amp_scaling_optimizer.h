#pragma once
#include <torch/torch.h>

namespace gpubench {

// An optimizer that takes the loss scale into its own kernel, as PyTorch's fused Adam
// (`_step_supports_amp_scaling`): it divides each gradient by `grad_scale` while updating
// and leaves every parameter and step count as it was when `found_inf` > 0, so the
// GradScaler neither unscales the gradients in a pass of its own nor has to decide on the
// host whether to step.
class AmpScalingOptimizer {
 public:
  virtual ~AmpScalingOptimizer() = default;
  virtual bool supports_amp_scaling() const = 0;
  // Gradients still scaled by `grad_scale` (1 element, float32); `found_inf` (1 element,
  // float32, 1 when any gradient is inf/NaN) from the scaler's check. Launches the step,
  // which the kernel skips where found_inf is set; reads nothing back from the device.
  virtual void step_scaled(const torch::Tensor& grad_scale, const torch::Tensor& found_inf) = 0;
};

}  // namespace gpubench
