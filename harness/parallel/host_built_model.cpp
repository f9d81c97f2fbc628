#include "harness/parallel/host_built_model.h"

#include <algorithm>

#include "harness/parallel/storage_bytes.h"

namespace gpubench {

void through_device(const torch::Tensor& tensor, torch::Device device, const std::function<void(torch::Tensor&)>& on_device,
                    std::int64_t piece_bytes) {
  torch::NoGradGuard no_grad;
  if (tensor.numel() == 0) return;
  const auto stage = [&](const torch::Tensor& piece) {
    torch::Tensor staged = piece.to(device);
    on_device(staged);
    piece.copy_(staged);
  };
  // A channels-last weight has no flat view in its element order: staged whole (a conv
  // weight, megabytes).
  if (!tensor.is_contiguous()) return stage(tensor);
  const torch::Tensor flat = tensor.view({-1});
  const std::int64_t step = std::max<std::int64_t>(1, piece_bytes / static_cast<std::int64_t>(tensor.element_size()));
  for (std::int64_t at = 0; at < flat.numel(); at += step) stage(flat.narrow(0, at, std::min(step, flat.numel() - at)));
}

void move_remaining_to(torch::nn::Module& module, torch::Device device) {
  torch::NoGradGuard no_grad;
  const auto move = [device](const torch::Tensor& tensor) {
    if (!tensor.defined() || tensor.device() == device) return;
    torch::Tensor variable = tensor;  // set_data needs a non-const handle; same TensorImpl
    if (tensor.numel() > 0 && tensor.storage().nbytes() == 0)
      variable.set_data(unallocated_on(tensor, device));
    else
      variable.set_data(tensor.to(device));  // strides kept (a channels-last weight stays one)
  };
  for (const auto& parameter : module.parameters()) move(parameter);
  for (const auto& buffer : module.buffers()) move(buffer);
}

}  // namespace gpubench
