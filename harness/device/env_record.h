#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "device/cuda_runtime.h"

namespace gpubench {

// The report's `env`: what a reader needs to trust or doubt a number — CPU, cores,
// threads, LibTorch version and whether it has CUDA, the BLAS actually loaded, CUDA
// availability with the runtime's reason, compiler, OS.
nlohmann::json record_environment(const CudaRuntimeInfo& cuda);

// The BLAS library this process has mapped (resolved path, e.g. .../openblas-openmp/libblas.so.3).
std::string loaded_blas();

nlohmann::json to_json(const CudaRuntimeInfo& cuda);

}  // namespace gpubench
