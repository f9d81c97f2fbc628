#include "workloads/fp8_linear.h"

#include <limits>
#include <stdexcept>
#include <string>

#include <ATen/autocast_mode.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/csrc/autograd/custom_function.h>

namespace gpubench {
namespace {

constexpr double kAmaxFloor = 1e-12;  // torchao's EPS: an all-zero tensor gets a finite scale

double fp8_max(c10::ScalarType fp8) {
  if (fp8 == c10::ScalarType::Float8_e4m3fn) return static_cast<float>(std::numeric_limits<c10::Float8_e4m3fn>::max());
  if (fp8 == c10::ScalarType::Float8_e5m2) return static_cast<float>(std::numeric_limits<c10::Float8_e5m2>::max());
  throw std::invalid_argument(std::string("fp8: ") + c10::toString(fp8) + " is not Float8_e4m3fn or Float8_e5m2");
}

// _scaled_mm's second operand is column-major: the same [rows, cols] values, stored
// transposed.
torch::Tensor column_major(const torch::Tensor& t) { return t.t().contiguous().t(); }

torch::Tensor scaled_mm(const Fp8Tensor& a, const torch::Tensor& b_column_major, const torch::Tensor& b_inverse_scale,
                        c10::ScalarType out, bool fast_accumulation) {
  return at::_scaled_mm(a.data, b_column_major, a.inverse_scale, b_inverse_scale, /*bias=*/{}, /*scale_result=*/{}, out,
                        fast_accumulation);
}

// x2 [M, K] (the compute dtype) and W [N, K] -> x2 W^T [M, N], every matmul in FP8.
class Fp8Matmul final : public torch::autograd::Function<Fp8Matmul> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x2, const torch::Tensor& weight) {
    // The casts and matmuls are this function's own: autocast must not recast them.
    c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::autocast_dispatch_keyset);
    const Fp8Tensor x8 = to_fp8(x2, c10::ScalarType::Float8_e4m3fn);
    const Fp8Tensor w8 = to_fp8(weight, c10::ScalarType::Float8_e4m3fn);
    ctx->save_for_backward({x8.data, x8.inverse_scale, w8.data, w8.inverse_scale});
    ctx->saved_data["weight_dtype"] = static_cast<int64_t>(weight.scalar_type());
    return scaled_mm(x8, w8.data.t(), w8.inverse_scale, x2.scalar_type(), /*fast_accumulation=*/true);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::autocast_dispatch_keyset);
    const auto saved = ctx->get_saved_variables();
    const Fp8Tensor x8{saved[0], saved[1]}, w8{saved[2], saved[3]};
    const auto weight_dtype = static_cast<c10::ScalarType>(ctx->saved_data["weight_dtype"].toInt());
    const torch::Tensor grad = grad_outputs[0].contiguous();
    const Fp8Tensor g8 = to_fp8(grad, c10::ScalarType::Float8_e5m2);
    torch::Tensor grad_input, grad_weight;
    if (ctx->needs_input_grad(0))
      grad_input = scaled_mm(g8, column_major(w8.data), w8.inverse_scale, grad.scalar_type(), false);
    if (ctx->needs_input_grad(1)) {
      const Fp8Tensor g8_t{g8.data.t().contiguous(), g8.inverse_scale};
      grad_weight = scaled_mm(g8_t, column_major(x8.data), x8.inverse_scale, weight_dtype, false);
    }
    return {grad_input, grad_weight};
  }
};

void check_shapes(std::int64_t rows, std::int64_t in, std::int64_t out) {
  if (rows % 16 == 0 && in % 16 == 0 && out % 16 == 0) return;
  throw std::invalid_argument("fp8_linear: _scaled_mm needs every matmul dimension a multiple of 16; this Linear has " +
                              std::to_string(rows) + " rows, " + std::to_string(in) + " inputs, " + std::to_string(out) +
                              " outputs");
}

}  // namespace

torch::Tensor fp8_scale(const torch::Tensor& amax, c10::ScalarType fp8) {
  return (fp8_max(fp8) / amax.to(torch::kFloat64).clamp_min(kAmaxFloor)).to(torch::kFloat32);
}

Fp8Tensor to_fp8(const torch::Tensor& t, c10::ScalarType fp8) {
  const double max = fp8_max(fp8);
  const torch::Tensor scale = fp8_scale(t.abs().max(), fp8);
  return {(t.to(torch::kFloat32) * scale).clamp(-max, max).to(fp8), scale.reciprocal()};
}

torch::Tensor fp8_linear(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias) {
  const c10::DeviceType device = input.device().type();
  const c10::ScalarType compute =
      at::autocast::is_autocast_enabled(device) ? at::autocast::get_autocast_dtype(device) : input.scalar_type();
  const std::int64_t in = input.size(-1), out = weight.size(0);
  // _scaled_mm's first operand must be row-major; a strided view would reach cuBLASLt as is.
  const torch::Tensor x2 = input.to(compute).reshape({-1, in}).contiguous();
  check_shapes(x2.size(0), in, out);
  torch::Tensor y = Fp8Matmul::apply(x2, weight);
  if (bias.defined()) y = y + bias.to(compute);
  auto shape = input.sizes().vec();
  shape.back() = out;
  return y.view(shape);
}

torch::Tensor apply_linear(FamilyLinear& linear, const torch::Tensor& x, bool fp8) {
  return fp8 ? fp8_linear(x, linear->weight, linear->bias) : linear->forward(x);
}

}  // namespace gpubench
