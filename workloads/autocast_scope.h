#pragma once
// Autocast for one device type while in scope, restoring the previous state after: what
// Python's `with torch.autocast(device, dtype)` does. LibTorch ships no C++ guard.
#include <ATen/autocast_mode.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

namespace gpubench {

class AutocastScope {
 public:
  AutocastScope(c10::DeviceType device, c10::ScalarType dtype, bool enabled) : device_(device), active_(enabled) {
    if (!active_) return;
    previous_enabled_ = at::autocast::is_autocast_enabled(device_);
    previous_dtype_ = at::autocast::get_autocast_dtype(device_);
    at::autocast::set_autocast_dtype(device_, dtype);
    at::autocast::set_autocast_enabled(device_, true);
    at::autocast::increment_nesting();
  }
  ~AutocastScope() {
    if (!active_) return;
    // Leaving the outermost autocast region frees the cast-weight cache, as Python does.
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    at::autocast::set_autocast_enabled(device_, previous_enabled_);
    at::autocast::set_autocast_dtype(device_, previous_dtype_);
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  c10::DeviceType device_;
  bool active_;
  bool previous_enabled_ = false;
  c10::ScalarType previous_dtype_ = c10::ScalarType::Float;
};

}  // namespace gpubench
