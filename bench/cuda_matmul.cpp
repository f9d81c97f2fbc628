#include "bench/cuda_matmul.h"

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>

#include "bench/matmul_inputs.h"

namespace gpubench::bench {
namespace {

// Sets whether cuBLAS may use TF32 for fp32 matmuls while in scope, restoring it after
// (the process-wide flag must not leak into the next benchmark).
class Tf32Scope {
 public:
  explicit Tf32Scope(bool allow) : previous_(at::globalContext().allowTF32CuBLAS()) {
    at::globalContext().setAllowTF32CuBLAS(allow);
  }
  ~Tf32Scope() { at::globalContext().setAllowTF32CuBLAS(previous_); }
  Tf32Scope(const Tf32Scope&) = delete;
  Tf32Scope& operator=(const Tf32Scope&) = delete;

 private:
  bool previous_;
};

constexpr std::size_t kWarmupMatmuls = 2;

// C = A B into the kept output. FP8 as the fp8 training rows run it: at::_scaled_mm (B
// column-major, here B^T's view: the same random values, so the same work), unit scales,
// fast accumulation, bf16 out.
void multiply(MatmulInputs& inputs, const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& unit_scale) {
  if (a.scalar_type() == torch::kFloat8_e4m3fn)
    at::_scaled_mm_out(inputs.output(), a, b.t(), unit_scale, unit_scale, /*bias=*/{}, /*scale_result=*/{},
                       torch::kBFloat16, /*use_fast_accum=*/true);
  else
    at::mm_out(inputs.output(), a, b);
}

}  // namespace

void measure_cuda_matmul(benchmark::State& state, std::int64_t n, const MatmulPrecision& precision) {
  const torch::Device device(torch::kCUDA, 0);
  Tf32Scope tf32(precision.tf32);
  MatmulInputs inputs(n, precision.dtype, device);
  const torch::Tensor unit_scale = torch::ones({}, torch::TensorOptions().device(device).dtype(torch::kFloat32));
  // Untimed warm-up over every input set: the first matmul creates cuBLAS's handle and
  // workspace and picks the kernel, which no timed iteration may pay for.
  for (std::size_t i = 0; i < inputs.set_count() + kWarmupMatmuls; ++i) {
    const auto& [a, b] = inputs.next();
    multiply(inputs, a, b, unit_scale);
  }
  at::cuda::getCurrentCUDAStream().synchronize();
  // Timing events (the default flags of CUDAEvent disable timing).
  at::cuda::CUDAEvent start(cudaEventDefault), stop(cudaEventDefault);
  for (auto _ : state) {
    const auto& [a, b] = inputs.next();
    const auto stream = at::cuda::getCurrentCUDAStream();
    start.record(stream);
    multiply(inputs, a, b, unit_scale);
    stop.record(stream);
    stop.synchronize();
    state.SetIterationTime(static_cast<double>(start.elapsed_time(stop)) / 1e3);
  }
  state.counters["tflops"] = benchmark::Counter(inputs.flops_per_matmul() / 1e12, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["input_sets"] = static_cast<double>(inputs.set_count());
}

}  // namespace gpubench::bench
