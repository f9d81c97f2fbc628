#pragma once
#include <torch/torch.h>

namespace gpubench {

// Re-lays every 4-d parameter and buffer of `module` out in channels_last (NHWC) memory
// format, in place: LibTorch's Module::to has no memory-format overload (Python's
// model.to(memory_format=...) has). set_data keeps each tensor's identity, so an optimizer
// made before or after holds the same parameters.
void to_channels_last(torch::nn::Module& module);

}  // namespace gpubench
