#pragma once
// A hook autograd runs once a parameter's gradient is accumulated into its .grad: how the
// sharded modes (and fsdp's experts sharded over their replicas) learn that backward has
// made a unit's gradients, to reduce them while backward goes on.
#include <functional>
#include <memory>
#include <utility>

#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

namespace gpubench {

class ArrivalHook final : public torch::autograd::PostAccumulateGradHook {
 public:
  explicit ArrivalHook(std::function<void()> arrived) : arrived_(std::move(arrived)) {}
  void operator()(const torch::autograd::Variable&) override { arrived_(); }

 private:
  std::function<void()> arrived_;
};

// Sets `parameter`'s hook (replacing any), or removes it with a null `arrived`.
inline void set_arrival_hook(const torch::Tensor& parameter, std::function<void()> arrived) {
  torch::autograd::impl::set_post_acc_grad_hooks(
      parameter, arrived ? std::make_unique<ArrivalHook>(std::move(arrived)) : nullptr);
}

}  // namespace gpubench
