#pragma once
// The CUDA execution plan: execution_plan.cpp calls it for every cuda config.
#include "harness/run/execution_plan.h"

namespace gpubench {

// cuda:0, synchronised phases, and per config:
//   fp32/pageable  LoaderBatchSource copying from ordinary memory (a blocking copy)
//   */pinned       PinnedBatchSource: pinned buffers, side-stream copy, one batch prefetched
//   amp-fp16       autocast float16 + GradScaler (PyTorch's defaults)
//   amp-bf16       autocast bfloat16, no loss scaling
//   fp8            amp-bf16 with the model's Linear layers in FP8 (the model is built so by
//                  the runner; this plan writes result["fp8"])
// A precision below cuda:0's compute capability (minimum_compute_capability) is refused.
//   dp             torch::nn::parallel::data_parallel over every visible device (1 is fine)
// Probes: host-to-device copy statistics (result["h2d"]), the caching allocator's peaks
// over the measured steps (result["memory"]["cuda_peak_allocated_bytes"/"..reserved.."]),
// result["parallel"] = {"devices", ...} for dp. plan.device_memory_stats is the per-step
// allocator snapshot for MemorySampler.
// Throws std::runtime_error when no CUDA device is usable or the config is not a CUDA one
// this plan knows (DDP runs elsewhere).
ExecutionPlan plan_cuda_execution(const Config& config);

}  // namespace gpubench
