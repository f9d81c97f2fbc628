#pragma once
#include <nlohmann/json.hpp>

#include "core/config/run_settings.h"

namespace gpubench {

// How this process's host (glibc) allocator treats LibTorch's CPU tensors (HostMalloc,
// config/run_settings.h, is the --host-malloc setting).
//
// glibc serves every allocation above its mmap threshold (128 KiB, raised only to the
// largest chunk freed so far, 32 MiB at most) with a fresh mmap and returns it with
// munmap. A training step frees and re-allocates the same activations and gradients every
// step, so each step page-faults and zero-fills them again: measured on the 2-core
// machine, ~2,400 faults per MLP step and 1.6 M in 10 transformer steps, 13-18% of the
// CPU step time, in the plain Python loop exactly as in ours. That is the allocator's
// cost, not the machine's.
//
//   retain (default): mallopt(M_MMAP_MAX, 0) and an unbounded M_TRIM_THRESHOLD: large
//                     blocks come from the heap and freed ones stay there for the next
//                     step (what jemalloc/tcmalloc do, which Intel's PyTorch CPU guide
//                     preloads for the same reason). RSS keeps its peak; peak is unchanged.
//   glibc:            leave glibc's defaults (what `python train.py` gets).
// Applies `mode` to this process; call before the first tensor. Throws std::runtime_error
// if glibc refuses a setting.
void configure_host_malloc(HostMalloc mode);

// {"mode": "retain", "detail": "..."} for the report.
nlohmann::json host_malloc_json(HostMalloc mode);

}  // namespace gpubench
