#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/device/cuda_runtime.h"

namespace gpubench {

// The report's `env`: what a reader needs to trust or doubt a number — CPU, cores,
// threads, LibTorch version and whether it has CUDA, the BLAS actually loaded, CUDA
// availability with the runtime's reason, compiler, OS.
nlohmann::json record_environment(const CudaRuntimeInfo& cuda);

// What `env.gpu_validation` says on a machine with a CUDA device, and what the README's first
// screen says: gpubench's CUDA paths are compiled, linked and reviewed everywhere, run in CI
// on none (no GPU there), and no GPU run of the project's own has landed yet. Remove it (and
// the README's sentence) when one has.
inline constexpr const char* kGpuValidation =
    "gpubench's CUDA paths are compiled, linked and reviewed, and its CPU paths run in CI; no GPU run of the "
    "project's own has landed yet (issue 54): read this report's CUDA rows as a first run, and report what fails";

// The CPU BLAS LibTorch uses: the library this process has mapped (resolved path, e.g.
// .../openblas-openmp/libblas.so.3), else the one LibTorch's build config names, linked in
// ("mkl (linked into LibTorch)" for the pip wheel).
std::string loaded_blas();

nlohmann::json to_json(const CudaRuntimeInfo& cuda);

}  // namespace gpubench
