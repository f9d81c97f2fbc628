#pragma once
// LibTorch-CUDA matmul measurement.
#include <cstdint>

#include <benchmark/benchmark.h>

#include "bench/matmul_precision.h"

namespace gpubench::bench {

// Runs the benchmark loop on cuda:0, timing each matmul with CUDA events (manual time).
void measure_cuda_matmul(benchmark::State& state, std::int64_t n, const MatmulPrecision& precision);

}  // namespace gpubench::bench
