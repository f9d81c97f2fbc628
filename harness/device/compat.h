#pragma once
// The one place that absorbs LibTorch API drift between Debian's 1.13 and the 2.x wheels
// (../shared/LIBTORCH-COMPAT.md). Everything else calls these.
#include <ATen/autocast_mode.h>
#include <torch/torch.h>
#include <torch/version.h>
#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/distributed/c10d/Backend.hpp>
#else
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#endif

#define GPUBENCH_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace gpubench::compat {

// c10d: in 1.13 ProcessGroupGloo/NCCL derive from ProcessGroup; 2.0 made them Backends
// (ProcessGroup became a dispatcher over them). Both spell allreduce, broadcast and
// barrier the same and return c10d::Work.
#if TORCH_VERSION_MAJOR >= 2
using CollectiveGroup = c10d::Backend;
#else
using CollectiveGroup = c10d::ProcessGroup;
#endif

// Autocast for one device type while in scope, restoring the previous state after
// (LibTorch ships no C++ guard). 2.4 moved to device-typed setters; 1.13 has per-device names.
class AutocastScope {
 public:
  AutocastScope(c10::DeviceType device, c10::ScalarType dtype, bool enabled) : device_(device), active_(enabled) {
    if (!active_) return;
    previous_enabled_ = is_enabled(device_);
    previous_dtype_ = get_dtype(device_);
    set_dtype(device_, dtype);
    set_enabled(device_, true);
    at::autocast::increment_nesting();
  }
  ~AutocastScope() {
    if (!active_) return;
    // Leaving the outermost autocast region frees the cast-weight cache, as Python does.
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    set_enabled(device_, previous_enabled_);
    set_dtype(device_, previous_dtype_);
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

  static bool is_enabled(c10::DeviceType device) {
#if GPUBENCH_TORCH_AT_LEAST(2, 4)
    return at::autocast::is_autocast_enabled(device);
#else
    return device == c10::DeviceType::CPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
#endif
  }

 private:
  static void set_enabled(c10::DeviceType device, bool enabled) {
#if GPUBENCH_TORCH_AT_LEAST(2, 4)
    at::autocast::set_autocast_enabled(device, enabled);
#else
    if (device == c10::DeviceType::CPU)
      at::autocast::set_cpu_enabled(enabled);
    else
      at::autocast::set_enabled(enabled);
#endif
  }
  static c10::ScalarType get_dtype(c10::DeviceType device) {
#if GPUBENCH_TORCH_AT_LEAST(2, 4)
    return at::autocast::get_autocast_dtype(device);
#else
    return device == c10::DeviceType::CPU ? at::autocast::get_autocast_cpu_dtype() : at::autocast::get_autocast_gpu_dtype();
#endif
  }
  static void set_dtype(c10::DeviceType device, c10::ScalarType dtype) {
#if GPUBENCH_TORCH_AT_LEAST(2, 4)
    at::autocast::set_autocast_dtype(device, dtype);
#else
    if (device == c10::DeviceType::CPU)
      at::autocast::set_autocast_cpu_dtype(dtype);
    else
      at::autocast::set_autocast_gpu_dtype(dtype);
#endif
  }

  c10::DeviceType device_;
  bool active_;
  bool previous_enabled_ = false;
  c10::ScalarType previous_dtype_ = c10::ScalarType::Float;
};

// Python's default since 2.0 (`set_to_none=True`); 1.13's C++ zero_grad() zero-fills
// instead, which costs a memset per parameter. Resetting the grads is the same in both.
inline void zero_grad_to_none(torch::optim::Optimizer& optimizer) {
  for (auto& group : optimizer.param_groups())
    for (auto& parameter : group.params()) parameter.mutable_grad() = torch::Tensor();
}

}  // namespace gpubench::compat
