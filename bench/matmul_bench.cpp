// Matrix-multiply throughput (TFLOP/s) through LibTorch: the compute ceiling each
// precision can reach, to set against a training config's achieved throughput. CPU fp32
// and bf16 always; CUDA fp32/tf32/fp16/bf16/fp8 where LibTorch has CUDA (skipped otherwise;
// fp8 also on a GPU below compute capability 8.9, with cuBLASLt's error).
#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "bench/cuda_availability.h"
#include "bench/matmul_inputs.h"
#include "bench/matmul_precision.h"
#include "bench/registrations.h"

#include "bench/cuda_matmul.h"

namespace gpubench::bench {
namespace {

// CPU sizes stay small enough for one core (bf16 on CPU can be a slow fallback kernel);
// CUDA sizes reach the size where tensor cores saturate.
const std::vector<std::int64_t> kCpuSizes = {256, 512, 1024};
const std::vector<std::int64_t> kCudaSizes = {2048, 4096, 8192};

void cpu_matmul(benchmark::State& state, MatmulPrecision precision) {
  MatmulInputs inputs(state.range(0), precision.dtype, torch::kCPU);
  for (auto _ : state) {
    const auto& [a, b] = inputs.next();
    at::mm_out(inputs.output(), a, b);  // into a kept buffer: allocation is not the ceiling
    benchmark::DoNotOptimize(inputs.output().data_ptr());
  }
  state.counters["tflops"] = benchmark::Counter(inputs.flops_per_matmul() / 1e12, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["input_sets"] = static_cast<double>(inputs.set_count());
  state.counters["torch_threads"] = at::get_num_threads();
}

void cuda_matmul(benchmark::State& state, MatmulPrecision precision) {
  if (auto reason = torch_cuda_unavailable_reason()) {
    state.SkipWithError(reason->c_str());
    return;
  }
  try {
    measure_cuda_matmul(state, state.range(0), precision);
  } catch (const std::exception& error) {  // out of memory, unsupported dtype: say so, go on
    state.SkipWithError(error.what());
  }
}

void register_matmul(const std::string& device, MatmulPrecision precision) {
  const std::string name = "matmul/" + device + "/" + precision.name;
  const bool cpu = device == "cpu";
  auto* benchmark = cpu ? benchmark::RegisterBenchmark(name.c_str(), cpu_matmul, precision)->UseRealTime()
                        : benchmark::RegisterBenchmark(name.c_str(), cuda_matmul, precision)->UseManualTime();
  benchmark->ArgName("n")->Unit(benchmark::kMillisecond);
  for (const auto n : cpu ? kCpuSizes : kCudaSizes) benchmark->Arg(n);
}

}  // namespace

void register_matmul_benchmarks() {
  register_matmul("cpu", {"fp32", torch::kFloat32, false});
  register_matmul("cpu", {"bf16", torch::kBFloat16, false});
  register_matmul("cuda", {"fp32", torch::kFloat32, false});
  register_matmul("cuda", {"tf32", torch::kFloat32, true});
  register_matmul("cuda", {"fp16", torch::kFloat16, false});
  register_matmul("cuda", {"bf16", torch::kBFloat16, false});
  register_matmul("cuda", {"fp8", torch::kFloat8_e4m3fn, false});  // e4m3 x e4m3, the fp8 rows' forward
}

}  // namespace gpubench::bench
