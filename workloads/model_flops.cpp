#include "workloads/model_flops.h"

#include <stdexcept>
#include <variant>

namespace gpubench {

std::int64_t linear_macs(const torch::nn::Linear& layer) {
  return layer->options.in_features() * layer->options.out_features();
}

namespace {

// floor((in + 2 * padding - dilation * (kernel - 1) - 1) / stride) + 1, as Conv2d's docs.
std::int64_t conv_output_size(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t padding,
                              std::int64_t dilation) {
  return (in + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1;
}

}  // namespace

Conv2dCost conv2d_cost(const torch::nn::Conv2d& conv, std::int64_t height, std::int64_t width) {
  const auto& o = conv->options;
  const auto* padding = std::get_if<torch::ExpandingArray<2>>(&o.padding());
  if (!padding) throw std::invalid_argument("conv2d_cost: only explicit padding is counted (not kSame/kValid)");
  Conv2dCost cost;
  cost.height = conv_output_size(height, (*o.kernel_size())[0], (*o.stride())[0], (**padding)[0], (*o.dilation())[0]);
  cost.width = conv_output_size(width, (*o.kernel_size())[1], (*o.stride())[1], (**padding)[1], (*o.dilation())[1]);
  cost.macs = cost.height * cost.width * o.out_channels() * (o.in_channels() / o.groups()) * (*o.kernel_size())[0] *
              (*o.kernel_size())[1];
  return cost;
}

}  // namespace gpubench
