#include "workloads/segment_runner.h"

#include "workloads/activation_checkpoint.h"

namespace gpubench {

torch::Tensor SegmentRunner::run(std::size_t index, std::function<torch::Tensor(const torch::Tensor&)> segment,
                                 const torch::Tensor& input, std::vector<torch::nn::BatchNorm2d> norms) const {
  if (hooks) hooks->before_forward(index);
  // The hooks stay outside the checkpoint: its recompute runs the segment alone, after the
  // hook on the output has regathered the unit for its backward.
  torch::Tensor output = checkpoint ? checkpointed(std::move(segment), input, std::move(norms)) : segment(input);
  return hooks ? hooks->after_forward(index, output) : output;
}

}  // namespace gpubench
