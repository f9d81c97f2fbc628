#pragma once
// Autocast for one device type while in scope, restoring the previous state after: what
// Python's `with torch.autocast(device, dtype, enabled)` does, nesting count included.
// LibTorch ships no C++ guard. Enabled or not, the scope sets the state: activation
// checkpointing's recompute runs under the forward's state whatever the backward's is.
#include <ATen/autocast_mode.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

namespace gpubench {

class AutocastScope {
 public:
  AutocastScope(c10::DeviceType device, c10::ScalarType dtype, bool enabled)
      : device_(device),
        previous_enabled_(at::autocast::is_autocast_enabled(device)),
        previous_dtype_(at::autocast::get_autocast_dtype(device)) {
    at::autocast::set_autocast_dtype(device_, dtype);
    at::autocast::set_autocast_enabled(device_, enabled);
    at::autocast::increment_nesting();
  }
  ~AutocastScope() {
    // Leaving the outermost autocast region frees the cast-weight cache, as Python does:
    // the bf16/fp16 copies of the weights made inside must not outlive the optimizer step
    // that changes the weights (the cache is keyed by the weight, not its version).
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    at::autocast::set_autocast_enabled(device_, previous_enabled_);
    at::autocast::set_autocast_dtype(device_, previous_dtype_);
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  c10::DeviceType device_;
  bool previous_enabled_;
  c10::ScalarType previous_dtype_;
};

}  // namespace gpubench
