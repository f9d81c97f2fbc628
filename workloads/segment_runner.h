#pragma once
// How a model's forward runs each of its segments (a block, a stage, a layer): as it is,
// recomputed in backward (ckpt, activation_checkpoint.h), and between the hooks of a
// sharded data-parallel run (fsdp gathers a unit's parameters before its forward and frees
// them after). The segments are the model's units of sharding (Model::units), in forward
// order; every model runs them through one SegmentRunner, so ckpt and fsdp compose the
// same way in each.
#include <cstddef>
#include <functional>
#include <vector>

#include <torch/torch.h>

namespace gpubench {

// What a sharded run does around a unit's forward (harness/parallel implements it).
class UnitHooks {
 public:
  virtual ~UnitHooks() = default;
  // Before unit `index`'s forward: its parameters hold their full values once this returns.
  virtual void before_forward(std::size_t index) = 0;
  // After it, with its output: returns the tensor the model goes on with (the output
  // itself; a hook on it may regather the unit before its backward). ckpt's recompute in
  // backward runs the segment alone, inside these two calls' effect.
  virtual torch::Tensor after_forward(std::size_t index, const torch::Tensor& output) = 0;
};

struct SegmentRunner {
  bool checkpoint = false;     // ckpt: activations recomputed in backward
  UnitHooks* hooks = nullptr;  // a sharded run's, while it lasts; null: none

  // Runs segment `index` (the model's `index`th unit) on `input`. `norms`: the
  // segment's BatchNorms, whose running statistics a recompute must not update twice.
  torch::Tensor run(std::size_t index, std::function<torch::Tensor(const torch::Tensor&)> segment,
                    const torch::Tensor& input, std::vector<torch::nn::BatchNorm2d> norms = {}) const;
};

}  // namespace gpubench
