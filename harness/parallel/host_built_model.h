#pragma once
// A model built on the host (Config::model_built_on_host: a GPU rank of fsdp-N or ep-K)
// reaches its device in pieces, so that the device never holds the whole fp32 model: fsdp's
// units flatten straight from the host into their device buffers (UnitShard), and what a
// rank keeps whole afterwards (the rest of an ep-K model, its own experts, buffers) moves
// here, one tensor at a time.
#include <cstdint>
#include <functional>

#include <torch/torch.h>

#include "core/config/config.h"

namespace gpubench {

// Runs `on_device` on `tensor`'s values staged on `device` in pieces of at most
// `piece_bytes`, each copied back after: how a tensor on the host takes part in a
// collective of NCCL, which reads and writes device memory only (rank 0's broadcast).
void through_device(const torch::Tensor& tensor, torch::Device device, const std::function<void(torch::Tensor&)>& on_device,
                    std::int64_t piece_bytes = Config::kHostStagingBytes);

// Every parameter and buffer of `module` not on `device` moves there (the same variables:
// what names them still does, autograd hooks included). A tensor whose storage was freed
// (ep-K's experts held by other ranks) becomes an unallocated one there, its shape kept.
void move_remaining_to(torch::nn::Module& module, torch::Device device);

}  // namespace gpubench
