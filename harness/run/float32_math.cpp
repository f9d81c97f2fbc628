#include "harness/run/float32_math.h"

#include <ATen/Context.h>

namespace gpubench {
namespace {

const char* math_name(bool tf32) { return tf32 ? "tf32" : "ieee-fp32"; }

}  // namespace

nlohmann::json apply_float32_math(Precision precision) {
  at::Context& context = at::globalContext();
  std::string set_by = "LibTorch's defaults (a Python loop's): cuDNN TF32 on, cuBLAS TF32 off";
  if (precision == Precision::Fp32 || precision == Precision::Tf32) {
    const bool tf32 = precision == Precision::Tf32;
    // The setters LibTorch 2.11 keeps (setFloat32Precision is the newer spelling of both).
    context.setAllowTF32CuBLAS(tf32);
    context.setAllowTF32CuDNN(tf32);
    set_by = tf32 ? "the tf32 config: TF32 for cuBLAS and cuDNN" : "the fp32 config: IEEE fp32 for cuBLAS and cuDNN";
  }
  // Read back, not assumed: what the kernels will be asked for.
  return {{"matmul", math_name(context.allowTF32CuBLAS())},
          {"convolution", math_name(context.allowTF32CuDNN())},
          {"set_by", set_by}};
}

}  // namespace gpubench
