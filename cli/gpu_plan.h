#pragma once
// --list --assume-gpus NxSIZE: a memory plan for a machine gpubench is not running on (8
// GPUs of 80 GiB, say). The matrix expands as it would there (ddp-8, fsdp-8, the recipes
// for 8 GPUs) and every CUDA config shows its estimate per GPU (workloads' memory_estimate,
// per rank of its parallel mode: workloads/sharded_memory.h), whether it fits, and the
// largest micro-batch that does. Nothing runs; no GPU is touched.
#include <cstdint>
#include <optional>
#include <string>

#include "cli/assumed_gpus.h"
#include "core/config/config.h"
#include "core/config/run_settings.h"
#include "harness/run/capability.h"

namespace gpubench {

// `machine` with these GPUs instead of its own: LibTorch's CUDA assumed usable, every
// device of compute capability 9.0 (an H100's: bf16, TF32 and FP8 all run), named so.
MachineCapabilities with_assumed_gpus(MachineCapabilities machine, const AssumedGpus& gpus);

// The share of a GPU's memory a config may plan to fill: the CUDA context, NCCL's
// buffers and the caching allocator's fragmentation take the rest.
inline constexpr double kPlannedGpuShare = 0.9;

struct GpuFit {
  std::optional<double> estimate_bytes;   // per GPU at the config's micro-batch; none: the workload gives none
  bool fits = false;
  std::int64_t micro_batch = 0;           // the config's
  // The largest micro-batch that fits: doubling the config's while it fits (to 4096), or
  // halving it until one does; none when not even 1 does.
  std::optional<std::int64_t> fits_at;
  std::string text;                       // the --list line's words
  // fsdp-N and ep-K: the fp32 model each rank builds on the host before its GPU takes its
  // share (MemoryEstimate::host_model); 0 where the model is built on the GPU.
  double host_model_bytes = 0;
};

// A CUDA config's fit on one of `gpus` (each rank of a multi-rank config on a GPU of its own).
GpuFit plan_gpu_fit(const Config& config, const RunSettings& settings, const AssumedGpus& gpus);

}  // namespace gpubench
