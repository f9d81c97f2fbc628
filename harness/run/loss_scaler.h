#pragma once
#include <nlohmann/json.hpp>
#include <torch/torch.h>

namespace gpubench {

// Loss scaling around backward and the optimizer step. fp32 and bf16 need none
// (PassThroughScaler); fp16 autocast needs a GradScaler so small gradients survive.
class LossScaler {
 public:
  virtual ~LossScaler() = default;
  virtual torch::Tensor scale(const torch::Tensor& loss) { return loss; }
  // Unscales gradients and steps unless they hold inf/NaN. Returns whether it stepped.
  virtual bool step(torch::optim::Optimizer& optimizer) {
    optimizer.step();
    return true;
  }
  virtual void update() {}
  virtual void write_result(nlohmann::json& result) const {}
};

using PassThroughScaler = LossScaler;

}  // namespace gpubench
