#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "harness/run/amp_scaling_optimizer.h"
#include "harness/run/loss_scaler.h"

namespace gpubench {

// PyTorch's torch.amp.GradScaler defaults.
struct GradScalerOptions {
  double init_scale = 65536.0;  // 2^16
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  std::int64_t growth_interval = 2000;
};

// Which implementation unscales the gradients and updates the scale.
//  Aten:      at::_amp_foreach_non_finite_check_and_unscale_ and at::_amp_update_scale_
//             (the kernels PyTorch's GradScaler calls): CUDA in every version, CPU from 2.3.
//  TensorOps: the same arithmetic in ordinary tensor ops: runs on any device and version.
//  Auto:      Aten where the kernel exists for the tensors' device, else TensorOps.
enum class AmpKernels { Auto, Aten, TensorOps };

// Dynamic loss scaling for fp16 autocast (what torch.amp.GradScaler does):
//  scale(loss)     loss * scale
//  step(optimizer) unscales every gradient in place (grad *= 1/scale) while checking for
//                  inf/NaN; steps the optimizer only if all were finite. An optimizer that
//                  unscales in its own kernel (AmpScalingOptimizer: fused Adam) gets the
//                  scale and the inf flag instead, after a check-only pass, as PyTorch does
//  update()        inf/NaN found: scale *= backoff_factor and the clean-step count resets;
//                  otherwise after growth_interval clean steps in a row scale *= growth_factor
//                  (never to inf)
// The scale and the clean-step count live in tensors on the loss's device, as in PyTorch,
// so update() does not synchronise; step() reads one flag from the device (as PyTorch does),
// except with an optimizer that unscales in its kernel (fused Adam), where nothing is read
// back per step: step() returns true and the kernel skips on the device.
class GradScaler final : public LossScaler {
 public:
  // Throws std::invalid_argument naming the bad option and what was expected.
  explicit GradScaler(GradScalerOptions options = {}, AmpKernels kernels = AmpKernels::Auto);

  torch::Tensor scale(const torch::Tensor& loss) override;
  bool step(torch::optim::Optimizer& optimizer) override;
  void update() override;
  // {"grad_scaler": {init_scale, final_scale, growth_factor, backoff_factor,
  //   growth_interval, steps, skipped_steps, scale_growths, unscale_kernel,
  //   unscaled_in_optimizer_steps}}
  void write_result(nlohmann::json& result) const override;
  // The scale, growth tracker and the device skip count exist before a capture (made inside
  // one, their initial fill would be replayed and reset them every step); a replay counts
  // as one optimizer-unscaled step.
  void prepare_for_capture() override;
  void end_capture() override;
  void count_replayed_step() override;
  void agree_across_ranks(InfAgreement max_over_ranks) override {
    agree_ = std::move(max_over_ranks);
  }

  // PyTorch's unscale_(): unscales the gradients now (e.g. before clipping); step() then
  // does not unscale again. At most once between update() calls. Throws std::logic_error
  // before the first scale().
  void unscale(torch::optim::Optimizer& optimizer);

  // Whether the ATen kernels exist for tensors of this device type in this LibTorch.
  static bool aten_kernels_available(c10::DeviceType device);

  double current_scale() const;          // 0 before the first scale()
  std::int64_t growth_tracker() const;   // clean steps since the last growth or backoff
  std::int64_t steps() const { return steps_; }
  // Both read the device when optimizer-unscaled steps ran (their skips are counted there):
  // ask at the end of a run, not per step.
  std::int64_t skipped_steps() const override;
  std::int64_t scale_growths() const;
  const GradScalerOptions& options() const { return options_; }
  // "aten", "tensor-ops", "aten+tensor-ops" (both were used), or "none" before any unscale.
  std::string unscale_kernel() const;

 private:
  bool use_aten(c10::DeviceType device) const;
  // Flags inf/NaN gradients into found_inf_ while multiplying them by inv_scale (1: check only).
  void check_gradients(torch::optim::Optimizer& optimizer, const torch::Tensor& inv_scale, bool read_on_host);
  bool step_in_optimizer(torch::optim::Optimizer& optimizer, AmpScalingOptimizer& scaling);

  GradScalerOptions options_;
  AmpKernels kernels_;
  torch::Tensor scale_;           // float32, 1 element, on the loss's device
  torch::Tensor growth_tracker_;  // int32, 1 element, same device
  torch::Tensor found_inf_;       // float32, 1 element: > 0 if this iteration found inf/NaN
  bool unscaled_ = false;         // this iteration's gradients are already unscaled
  bool stepped_ = false;          // step() ran since the last update()
  torch::Tensor device_skips_;    // float32, 1 element: skips of optimizer-unscaled steps
  std::int64_t steps_ = 0, skipped_steps_ = 0;  // skipped_steps_: host-unscaled steps only
  std::int64_t optimizer_unscaled_steps_ = 0;  // steps whose unscale ran in the optimizer's kernel
  bool used_aten_ = false, used_tensor_ops_ = false;
  std::int64_t steps_before_capture_ = 0, unscaled_before_capture_ = 0;
  InfAgreement agree_;  // the sharded modes' max over ranks, or empty
};

}  // namespace gpubench
