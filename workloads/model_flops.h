#pragma once
#include <cstdint>

#include <torch/torch.h>

namespace gpubench {

// Model FLOPs by the usual convention (the one MFU is defined with: PaLM, Megatron-LM):
// only matrix multiplies count (Linear layers, convolutions, attention's two batched
// matmuls), 2 FLOPs per multiply-add; normalisation, activations, softmax, pooling,
// embedding lookups, the optimizer and the loss count none. Training is forward plus
// backward, and backward is taken as 2x forward (gradients of inputs and of weights).
inline constexpr std::int64_t kFlopsPerMac = 2;
inline constexpr std::int64_t kTrainingPassesPerForward = 3;

// How the matmul workloads count (the flops.convention every row states).
inline constexpr const char* kMatmulFlopsConvention =
    "matmul FLOPs only (Linear, Conv2d, attention's QK^T and AV), 2 per multiply-add; backward = 2x forward";

inline std::int64_t training_flops(std::int64_t forward_macs) {
  return forward_macs * kFlopsPerMac * kTrainingPassesPerForward;
}

// Multiply-adds of a Linear layer for one input row: in_features x out_features.
std::int64_t linear_macs(const torch::nn::Linear& layer);

// A Conv2d applied to one height x width input: its multiply-adds
// (out_h * out_w * out_channels * in_channels/groups * kernel_h * kernel_w) and output size
// (stride, padding, dilation from the layer's own options).
struct Conv2dCost {
  std::int64_t macs = 0, height = 0, width = 0;
};
Conv2dCost conv2d_cost(const torch::nn::Conv2d& conv, std::int64_t height, std::int64_t width);

}  // namespace gpubench
