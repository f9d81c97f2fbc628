#pragma once
#include <nlohmann/json.hpp>

#include "core/config/config.h"

namespace gpubench {

// What fp32 matmuls and convolutions run as on CUDA, set per config (each config runs in
// a process of its own) and read back from LibTorch for the row. LibTorch's defaults,
// which a Python user also gets, are TF32 convolutions (cuDNN, ATen/Context.h
// allow_tf32_cudnn = true) and IEEE fp32 matmuls (cuBLAS): an fp32 row left at them would
// run TF32 convolutions and tf32_vs_fp32 would understate TF32. So:
//   fp32: both IEEE fp32; tf32: both TF32; amp-*: LibTorch's defaults for the ops autocast
//   leaves in fp32, as a Python AMP loop gets them.
// Returns the row's "float32_math" section: {"matmul": "ieee-fp32"|"tf32", "convolution":
// ..., "set_by": what decided it}. Touches only LibTorch's global flags: runs without a GPU.
nlohmann::json apply_float32_math(Precision precision);

}  // namespace gpubench
