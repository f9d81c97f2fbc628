#pragma once
#include <memory>

#include "harness/run/loss_readback.h"

namespace gpubench {

// The CUDA LossReadback: each loss is copied into a pinned host scalar with a non_blocking
// copy on the current stream, followed by a CUDA event; waiting synchronises on that event
// only (not the stream, which already holds the next step).
std::unique_ptr<LossReadback> make_cuda_loss_readback();

}  // namespace gpubench
