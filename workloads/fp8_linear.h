#pragma once
#include <torch/torch.h>

#include "workloads/family_layers.h"

namespace gpubench {

// FP8 training matmuls as torchao's Float8Linear with its default recipe (dynamic,
// tensorwise scaling), in C++: LibTorch has no FP8 module, only at::_scaled_mm.
//
// A tensor goes to FP8 with one scale for the whole tensor, taken from its own amax at
// the moment of the cast (no history): scale = fp8 max / max(amax, 1e-12), the values
// multiplied in fp32, saturated to +-max, cast. _scaled_mm takes the inverse scales and
// returns (a * inv_a) @ (b * inv_b) in the output dtype.

// What a tensor is in FP8: its bits and the inverse of the scale that made them.
struct Fp8Tensor {
  torch::Tensor data;           // dtype Float8_e4m3fn or Float8_e5m2, the source's shape
  torch::Tensor inverse_scale;  // fp32 scalar: data * inverse_scale approximates the source
};

// fp8 max / max(amax, 1e-12), computed in fp64 and returned as an fp32 scalar (torchao's
// amax_to_scale).
torch::Tensor fp8_scale(const torch::Tensor& amax, c10::ScalarType fp8);

// The tensor scaled by fp8_scale(amax(|t|)), saturated and cast to `fp8`.
Fp8Tensor to_fp8(const torch::Tensor& t, c10::ScalarType fp8);

// y = x W^T + b with every matmul in FP8:
//   forward      x (e4m3) @ W^T (e4m3), fast accumulation (as torchao's forward gemm)
//   grad input   grad_y (e5m2) @ W (e4m3), full accumulation
//   grad weight  grad_y^T (e5m2) @ x (e4m3), full accumulation, in the weight's dtype
// The matmul runs in the autocast dtype when autocast is on for the input's device (the
// fp32 master weight is cast straight from fp32 to e4m3), else in the input's dtype; the
// bias is added in that dtype. Backward keeps the FP8 input and weight from the forward
// (tensorwise scales are the same whenever they are taken), so a Linear holds one byte
// per input element for backward instead of two. x is [..., in]; the product of its
// leading dimensions and in, out must be multiples of 16 (_scaled_mm's rule).
torch::Tensor fp8_linear(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias);

// `linear` as an FP8 matmul when `fp8`, else as itself.
torch::Tensor apply_linear(FamilyLinear& linear, const torch::Tensor& x, bool fp8);

}  // namespace gpubench
