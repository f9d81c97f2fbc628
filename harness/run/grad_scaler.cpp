#include "harness/run/grad_scaler.h"

#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "harness/run/amp_scaling_optimizer.h"

namespace gpubench {
namespace {

std::string number(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

void validate(const GradScalerOptions& o) {
  if (!(o.init_scale > 0) || !std::isfinite(o.init_scale))
    throw std::invalid_argument("GradScaler init_scale " + number(o.init_scale) + " is invalid: expected a finite value > 0");
  if (!(o.growth_factor > 1) || !std::isfinite(o.growth_factor))
    throw std::invalid_argument("GradScaler growth_factor " + number(o.growth_factor) + " is invalid: expected a finite value > 1");
  if (!(o.backoff_factor > 0 && o.backoff_factor < 1))
    throw std::invalid_argument("GradScaler backoff_factor " + number(o.backoff_factor) + " is invalid: expected a value in (0, 1)");
  if (o.growth_interval < 1 || o.growth_interval > std::numeric_limits<std::int32_t>::max())
    throw std::invalid_argument("GradScaler growth_interval " + std::to_string(o.growth_interval) +
                                " is invalid: expected a whole number from 1 to 2147483647");
}

// The ATen kernel's arithmetic in tensor ops: flags inf/NaN of the scaled gradient (before
// unscaling, as the kernel does), then multiplies by inv_scale computing in float (fp16/bf16
// gradients are promoted by the 1-element float tensor and rounded back in place).
void unscale_with_tensor_ops(const std::vector<torch::Tensor>& grads, torch::Tensor& found_inf,
                             const torch::Tensor& inv_scale) {
  for (const auto& grad : grads) {
    found_inf.masked_fill_(torch::logical_not(torch::isfinite(grad)).any(), 1.0);
    grad.mul_(inv_scale);
  }
}

// _amp_update_scale_'s arithmetic in tensor ops, without a host synchronisation:
//   found_inf: scale = float(scale * backoff); tracker = 0
//   else: successful = tracker + 1; if successful == interval: scale = float(scale * growth)
//         when that is finite; tracker = 0; else tracker = successful.
// The products are taken in double and rounded to float, like the kernel's float * double.
void update_with_tensor_ops(torch::Tensor& scale, torch::Tensor& tracker, const torch::Tensor& found_inf,
                            const GradScalerOptions& o) {
  const auto found = found_inf > 0;
  const auto successful = tracker + 1;
  const auto due = successful == o.growth_interval;
  const auto as_double = scale.to(torch::kDouble);
  const auto backed_off = (as_double * o.backoff_factor).to(torch::kFloat);
  const auto grown = (as_double * o.growth_factor).to(torch::kFloat);
  const auto grow = torch::logical_and(due, torch::isfinite(grown));
  const auto new_scale = torch::where(found, backed_off, torch::where(grow, grown, scale));
  const auto new_tracker = torch::where(torch::logical_or(found, due), torch::zeros_like(tracker), successful.to(tracker.scalar_type()));
  scale.copy_(new_scale);
  tracker.copy_(new_tracker);
}

}  // namespace

GradScaler::GradScaler(GradScalerOptions options, AmpKernels kernels) : options_(options), kernels_(kernels) {
  validate(options_);
}

bool GradScaler::aten_kernels_available(c10::DeviceType device) {
  return device == c10::DeviceType::CUDA || device == c10::DeviceType::CPU;
}

bool GradScaler::use_aten(c10::DeviceType device) const {
  switch (kernels_) {
    case AmpKernels::Aten:
      if (!aten_kernels_available(device))
        throw std::runtime_error("GradScaler: the ATen AMP kernels do not exist for " + c10::DeviceTypeName(device, /*lower_case=*/true) +
                                 " tensors in LibTorch " + TORCH_VERSION);
      return true;
    case AmpKernels::TensorOps: return false;
    case AmpKernels::Auto: return aten_kernels_available(device);
  }
  return false;
}

torch::Tensor GradScaler::scale(const torch::Tensor& loss) {
  if (!scale_.defined()) {
    const auto options = torch::TensorOptions().device(loss.device());
    scale_ = torch::full({1}, options_.init_scale, options.dtype(torch::kFloat));
    growth_tracker_ = torch::zeros({1}, options.dtype(torch::kInt));
  }
  return loss * scale_.to(loss.device(), scale_.scalar_type(), /*non_blocking=*/true);
}

void GradScaler::unscale(torch::optim::Optimizer& optimizer) {
  if (!scale_.defined()) throw std::logic_error("GradScaler::unscale/step called before scale(): there is nothing to unscale");
  if (unscaled_) throw std::logic_error("GradScaler::unscale called twice since the last update()");
  // 1/scale computed in double and rounded to float, as PyTorch does.
  check_gradients(optimizer, scale_.to(torch::kDouble).reciprocal().to(torch::kFloat), /*read_on_host=*/true);
  unscaled_ = true;
}

void GradScaler::check_gradients(torch::optim::Optimizer& optimizer, const torch::Tensor& inv_scale, bool read_on_host) {
  // One foreach call per (device, dtype), as PyTorch groups them (the kernel wants one of each).
  std::map<std::tuple<c10::DeviceType, c10::DeviceIndex, c10::ScalarType>, std::vector<torch::Tensor>> groups;
  for (auto& group : optimizer.param_groups())
    for (auto& parameter : group.params()) {
      const auto& grad = parameter.grad();
      if (!grad.defined()) continue;
      if (grad.is_sparse()) throw std::runtime_error("GradScaler: sparse gradients are not supported");
      groups[{grad.device().type(), grad.device().index(), grad.scalar_type()}].push_back(grad);
    }
  found_inf_ = torch::zeros({1}, scale_.options().dtype(torch::kFloat));
  for (auto& [key, grads] : groups) {
    const torch::Device device = grads.front().device();
    auto found = torch::zeros({1}, torch::TensorOptions().device(device).dtype(torch::kFloat));
    const auto inv = inv_scale.to(device, torch::kFloat, /*non_blocking=*/true);
    if (use_aten(device.type())) {
      at::_amp_foreach_non_finite_check_and_unscale_(grads, found, inv);
      used_aten_ = true;
    } else {
      unscale_with_tensor_ops(grads, found, inv);
      used_tensor_ops_ = true;
    }
    found_inf_.add_(found.to(found_inf_.device(), torch::kFloat, /*non_blocking=*/true));
  }
  // One flag, 0 or 1, as PyTorch shares one found_inf per device across dtypes: the fused
  // kernels skip only when *found_inf == 1, so a sum of 2 would step with inf.
  found_inf_.clamp_max_(1.0);
  if (agree_) agree_(found_inf_, read_on_host);  // one inf in any rank's shard skips every rank's step
}

bool GradScaler::step(torch::optim::Optimizer& optimizer) {
  if (stepped_) throw std::logic_error("GradScaler::step called twice without update() in between");
  auto* scaling = dynamic_cast<AmpScalingOptimizer*>(&optimizer);
  if (!unscaled_ && scaling != nullptr && scaling->supports_amp_scaling()) return step_in_optimizer(optimizer, *scaling);
  if (!unscaled_) unscale(optimizer);
  stepped_ = true;
  ++steps_;
  // The one host read per step, as in PyTorch: skipping must be decided on the host.
  if (found_inf_.item<float>() > 0) {
    ++skipped_steps_;
    return false;
  }
  optimizer.step();
  return true;
}

// PyTorch's path for a fused optimizer: the gradients are only checked (inv_scale 1, as
// GradScaler._check_inf_per_device), and the optimizer's kernel unscales and skips.
bool GradScaler::step_in_optimizer(torch::optim::Optimizer& optimizer, AmpScalingOptimizer& scaling) {
  if (!scale_.defined()) throw std::logic_error("GradScaler::step called before scale(): there is nothing to unscale");
  check_gradients(optimizer, torch::ones({1}, scale_.options().dtype(torch::kFloat)), /*read_on_host=*/false);
  stepped_ = true;
  ++steps_;
  ++optimizer_unscaled_steps_;
  scaling.step_scaled(scale_, found_inf_);
  // Counted on the device, read once when asked (skipped_steps()): PyTorch's fused AMP
  // step reads nothing back, and a read here would make the CPU wait for the whole step.
  if (!device_skips_.defined()) device_skips_ = torch::zeros_like(found_inf_);
  device_skips_.add_(found_inf_);
  return true;
}

void GradScaler::update() {
  if (!stepped_ && !unscaled_)
    throw std::logic_error("GradScaler::update called without step() or unscale(): no inf/NaN check was recorded");
  if (use_aten(scale_.device().type())) {
    at::_amp_update_scale_(scale_, growth_tracker_, found_inf_, options_.growth_factor, options_.backoff_factor,
                           options_.growth_interval);
  } else {
    update_with_tensor_ops(scale_, growth_tracker_, found_inf_, options_);
  }
  unscaled_ = false;
  stepped_ = false;
}

void GradScaler::prepare_for_capture() {
  if (!scale_.defined()) throw std::logic_error("GradScaler: a capture needs an eager scale() first (the warm-up's)");
  if (!device_skips_.defined()) device_skips_ = torch::zeros({1}, scale_.options().dtype(torch::kFloat));
  steps_before_capture_ = steps_;
  unscaled_before_capture_ = optimizer_unscaled_steps_;
}

void GradScaler::end_capture() {
  steps_ = steps_before_capture_;
  optimizer_unscaled_steps_ = unscaled_before_capture_;
}

void GradScaler::count_replayed_step() {
  ++steps_;
  ++optimizer_unscaled_steps_;
}

std::int64_t GradScaler::skipped_steps() const {
  return skipped_steps_ + (device_skips_.defined() ? std::llround(device_skips_.item<double>()) : 0);
}

// Every update multiplies the scale by growth_factor (a growth) or backoff_factor (a
// skipped step) or leaves it: the growths follow from the scale and the skips, read at
// the end, instead of a host mirror that would need found_inf on the host every step.
std::int64_t GradScaler::scale_growths() const {
  if (!scale_.defined()) return 0;
  const double change = std::log(current_scale() / options_.init_scale) -
                        static_cast<double>(skipped_steps()) * std::log(options_.backoff_factor);
  return std::max<std::int64_t>(0, std::llround(change / std::log(options_.growth_factor)));
}

double GradScaler::current_scale() const { return scale_.defined() ? scale_.item<double>() : 0.0; }

std::int64_t GradScaler::growth_tracker() const { return growth_tracker_.defined() ? growth_tracker_.item<std::int64_t>() : 0; }

std::string GradScaler::unscale_kernel() const {
  if (used_aten_ && used_tensor_ops_) return "aten+tensor-ops";
  if (used_aten_) return "aten";
  if (used_tensor_ops_) return "tensor-ops";
  return "none";
}

void GradScaler::write_result(nlohmann::json& result) const {
  result["grad_scaler"] = {{"init_scale", options_.init_scale},
                           {"final_scale", current_scale()},
                           {"growth_factor", options_.growth_factor},
                           {"backoff_factor", options_.backoff_factor},
                           {"growth_interval", options_.growth_interval},
                           {"steps", steps_},
                           {"skipped_steps", skipped_steps()},
                           {"scale_growths", scale_growths()},
                           {"unscale_kernel", unscale_kernel()},
                           {"unscaled_in_optimizer_steps", optimizer_unscaled_steps_}};
}

}  // namespace gpubench
