#pragma once
#include <functional>
#include <vector>

#include <torch/torch.h>

namespace gpubench {

// Activation checkpointing for one segment of a model (LibTorch has no
// torch::utils::checkpoint; PyTorch's reentrant variant, in C++): the forward runs the
// segment without recording its graph, so only `input` is kept; the backward runs it
// again with grad enabled, under the RNG state and autocast state the forward had, and
// backpropagates through that recompute, the parameters' gradients accumulating as in the
// plain graph. It trades one more forward of the segment for its activations.
//
// BatchNorm: in train mode the recompute would update the running statistics a second
// time (PyTorch's checkpoint does); the statistics of every module in `norms` are copied
// before the recompute and put back after, so a checkpointed step leaves them exactly as
// a plain step does.
torch::Tensor checkpointed(std::function<torch::Tensor(const torch::Tensor&)> segment, const torch::Tensor& input,
                           std::vector<torch::nn::BatchNorm2d> norms = {});

// Every BatchNorm2d inside `module` (itself included), for `norms`.
std::vector<torch::nn::BatchNorm2d> batch_norms_of(const torch::nn::Module& module);

}  // namespace gpubench
