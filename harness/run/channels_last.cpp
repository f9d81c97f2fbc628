#include "harness/run/channels_last.h"

namespace gpubench {

void to_channels_last(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  const auto relayout = [](torch::Tensor tensor) {
    if (tensor.defined() && tensor.dim() == 4) tensor.set_data(tensor.contiguous(torch::MemoryFormat::ChannelsLast));
  };
  for (const auto& parameter : module.parameters()) relayout(parameter);
  for (const auto& buffer : module.buffers()) relayout(buffer);
}

}  // namespace gpubench
