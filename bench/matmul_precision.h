#pragma once
#include <torch/torch.h>

namespace gpubench::bench {

// One matmul precision as the benchmarks name it: tf32 is fp32 storage with TensorFloat-32
// tensor-core math allowed (CUDA only); the others are the storage and math type.
struct MatmulPrecision {
  const char* name;
  torch::ScalarType dtype;
  bool tf32;
};

}  // namespace gpubench::bench
