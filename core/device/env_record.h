#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/device/cuda_runtime.h"

namespace gpubench {

// The report's `env`: what a reader needs to trust or doubt a number — CPU, cores,
// threads, LibTorch version and whether it has CUDA, the BLAS actually loaded, CUDA
// availability with the runtime's reason, compiler, OS.
nlohmann::json record_environment(const CudaRuntimeInfo& cuda);

// The CPU BLAS LibTorch uses: the library this process has mapped (resolved path, e.g.
// .../openblas-openmp/libblas.so.3), else the one LibTorch's build config names, linked in
// ("mkl (linked into LibTorch)" for the pip wheel).
std::string loaded_blas();

nlohmann::json to_json(const CudaRuntimeInfo& cuda);

}  // namespace gpubench
