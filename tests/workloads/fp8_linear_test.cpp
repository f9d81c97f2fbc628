// FP8 matmuls on the CPU: LibTorch 2.11 has a CPU at::_scaled_mm (a reference kernel:
// dequantise, fp32 matmul), so the scaling math runs here as it runs on a GPU, against an
// explicit dequantised reference (exact up to summation order) and a high-precision one
// (within FP8's rounding).
#include "workloads/fp8_linear.h"

#include <gtest/gtest.h>

#include "workloads/autocast_scope.h"
#include "workloads/gpt2.h"

namespace gpubench {
namespace {

constexpr auto kE4m3 = c10::ScalarType::Float8_e4m3fn;
constexpr auto kE5m2 = c10::ScalarType::Float8_e5m2;

double relative_error(const torch::Tensor& got, const torch::Tensor& want) {
  return ((got.to(torch::kFloat64) - want.to(torch::kFloat64)).norm() / want.to(torch::kFloat64).norm()).item<double>();
}

torch::Tensor dequantised(const Fp8Tensor& t) { return t.data.to(torch::kFloat32) * t.inverse_scale; }

TEST(Fp8Scaling, ScaleIsTheFormatMaximumOverTheAmax) {
  EXPECT_FLOAT_EQ(fp8_scale(torch::tensor(2.0), kE4m3).item<float>(), 224.0f);      // 448 / 2
  EXPECT_FLOAT_EQ(fp8_scale(torch::tensor(0.5), kE5m2).item<float>(), 114688.0f);   // 57344 / 0.5
  EXPECT_EQ(fp8_scale(torch::tensor(2.0), kE4m3).scalar_type(), torch::kFloat32);
  // An all-zero tensor gets the floor's finite scale, not inf.
  EXPECT_TRUE(std::isfinite(fp8_scale(torch::tensor(0.0), kE4m3).item<float>()));
  EXPECT_THROW(fp8_scale(torch::tensor(1.0), torch::kBFloat16), std::invalid_argument);
}

TEST(Fp8Scaling, TheAmaxLandsOnTheFormatMaximumAndTheInverseScaleUndoesTheScale) {
  torch::manual_seed(0);
  const torch::Tensor t = torch::randn({64, 32}) * 3;
  for (const auto format : {kE4m3, kE5m2}) {
    const Fp8Tensor q = to_fp8(t, format);
    EXPECT_EQ(q.data.scalar_type(), format);
    EXPECT_EQ(q.data.sizes(), t.sizes());
    const double max = format == kE4m3 ? 448.0 : 57344.0;
    EXPECT_DOUBLE_EQ(q.data.to(torch::kFloat32).abs().max().item<double>(), max);
    EXPECT_FLOAT_EQ(q.inverse_scale.item<float>(), (t.abs().max() / max).item<float>());
    // e4m3 keeps 3 mantissa bits (rounding <= 2^-4 relative), e5m2 2 (<= 2^-3).
    const double bound = format == kE4m3 ? 0.0625 : 0.125;
    const torch::Tensor normal = t.abs() > t.abs().max() * 1e-2;  // away from the subnormals
    EXPECT_LE(((dequantised(q) - t).abs() / t.abs()).masked_select(normal).max().item<double>(), bound * 1.0001);
  }
}

// The forward and both gradients are the dequantised operands' matmuls: _scaled_mm got
// the inverse scales, the operands in the right formats.
TEST(Fp8Linear, ForwardAndGradientsAreTheMatmulsOfTheScaledFp8Operands) {
  torch::manual_seed(1);
  const torch::Tensor x = torch::randn({2, 16, 64}, torch::requires_grad());
  const torch::Tensor w = (torch::randn({48, 64}) * 0.05).requires_grad_();
  const torch::Tensor b = (torch::randn({48}) * 0.1).requires_grad_();
  const torch::Tensor y = fp8_linear(x, w, b);
  ASSERT_EQ(y.sizes(), (std::vector<int64_t>{2, 16, 48}));
  const torch::Tensor grad_y = torch::randn_like(y);
  y.backward(grad_y);

  torch::NoGradGuard no_grad;
  const Fp8Tensor x8 = to_fp8(x.reshape({-1, 64}), kE4m3), w8 = to_fp8(w, kE4m3);
  const Fp8Tensor g8 = to_fp8(grad_y.reshape({-1, 48}), kE5m2);
  EXPECT_LT(relative_error(y.reshape({-1, 48}), torch::mm(dequantised(x8), dequantised(w8).t()) + b), 1e-6);
  EXPECT_LT(relative_error(x.grad().reshape({-1, 64}), torch::mm(dequantised(g8), dequantised(w8))), 1e-6);
  EXPECT_LT(relative_error(w.grad(), torch::mm(dequantised(g8).t(), dequantised(x8))), 1e-6);
  EXPECT_LT(relative_error(b.grad(), grad_y.sum(std::vector<int64_t>{0, 1})), 1e-6);  // the bias is added in high precision
  EXPECT_EQ(w.grad().scalar_type(), torch::kFloat32);
}

// Against fp32 math, FP8's rounding: e4m3 operands ~2-3% relative on a 64-term dot product,
// the e5m2 gradient about twice that.
TEST(Fp8Linear, StaysWithinFp8RoundingOfTheFp32Linear) {
  torch::manual_seed(2);
  const torch::Tensor x = torch::randn({32, 128}, torch::requires_grad());
  const torch::Tensor w = (torch::randn({64, 128}) * 0.05).requires_grad_();
  const torch::Tensor grad_y = torch::randn({32, 64});
  fp8_linear(x, w, {}).backward(grad_y);
  const torch::Tensor x_ref = x.detach().clone().requires_grad_(), w_ref = w.detach().clone().requires_grad_();
  const torch::Tensor y_ref = torch::linear(x_ref, w_ref);
  y_ref.backward(grad_y);
  EXPECT_LT(relative_error(fp8_linear(x.detach(), w.detach(), {}), y_ref.detach()), 0.05);
  EXPECT_LT(relative_error(x.grad(), x_ref.grad()), 0.10);
  EXPECT_LT(relative_error(w.grad(), w_ref.grad()), 0.10);
}

// Under autocast the matmul runs in the autocast dtype (the output is bf16 as a plain
// Linear's would be, and within FP8's rounding of it) while the master weight's gradient
// stays fp32.
TEST(Fp8Linear, RunsInTheAutocastDtypeAndKeepsTheMasterGradientInFp32) {
  torch::manual_seed(3);
  const torch::Tensor x = torch::randn({16, 32}, torch::requires_grad());
  const torch::Tensor w = (torch::randn({16, 32}) * 0.1).requires_grad_();
  const torch::Tensor b = torch::zeros({16}, torch::requires_grad());
  torch::Tensor y, bf16_reference;
  {
    AutocastScope autocast(c10::DeviceType::CPU, torch::kBFloat16, true);
    y = fp8_linear(x, w, b);
    torch::NoGradGuard no_grad;
    bf16_reference = torch::linear(x, w, b);  // what the amp-bf16 row's Linear computes
  }
  EXPECT_EQ(y.scalar_type(), torch::kBFloat16);
  ASSERT_EQ(bf16_reference.scalar_type(), torch::kBFloat16);
  EXPECT_LT(relative_error(y, bf16_reference), 0.05);
  y.to(torch::kFloat32).sum().backward();
  EXPECT_EQ(x.grad().scalar_type(), torch::kFloat32);
  EXPECT_EQ(w.grad().scalar_type(), torch::kFloat32);
  EXPECT_EQ(b.grad().scalar_type(), torch::kFloat32);
}

// A strided view gives what its contiguous copy gives (cuBLASLt takes only a row-major
// first operand: the function makes it one).
TEST(Fp8Linear, AStridedInputGivesWhatItsContiguousCopyGives) {
  torch::manual_seed(5);
  const torch::Tensor x = torch::randn({32, 16}).t();  // [16, 32], column-major
  const torch::Tensor w = torch::randn({16, 32}) * 0.1;
  ASSERT_FALSE(x.is_contiguous());
  EXPECT_TRUE(torch::equal(fp8_linear(x, w, {}), fp8_linear(x.contiguous(), w, {})));
}

TEST(Fp8Linear, RefusesDimensionsThatAreNotMultiplesOf16) {
  try {
    fp8_linear(torch::randn({16, 24}), torch::randn({16, 24}), {});
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 16"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("24 inputs"), std::string::npos) << e.what();
  }
}

// gpt2's fp8 model: the same parameters (names and values) as the plain one, every block
// Linear in FP8, the tied LM head not; a few Adam steps of it track the plain model's loss.
TEST(Fp8Linear, Gpt2WithFp8BlocksTrainsAsThePlainModelWithinFp8Rounding) {
  const Gpt2Shape shape{/*vocab=*/128, /*layers=*/2, /*heads=*/4, /*embd=*/64, /*context=*/32};
  torch::manual_seed(4);
  Gpt2 plain(shape);
  plain->init_weights();
  Gpt2 fp8(shape);
  {
    torch::NoGradGuard no_grad;
    const auto source = plain->named_parameters();
    for (auto& item : fp8->named_parameters()) item.value().copy_(source[item.key()]);
  }
  fp8->use_fp8_linears();
  for (const auto& block : *fp8->transformer->h) {
    EXPECT_TRUE(block->as<Gpt2BlockImpl>()->attn->fp8);
    EXPECT_TRUE(block->as<Gpt2BlockImpl>()->mlp->fp8);
  }
  const torch::Tensor tokens = torch::randint(shape.vocab, {2, shape.context});
  const torch::Tensor targets = torch::randint(shape.vocab, {2, shape.context});
  const auto loss_of = [&](Gpt2& model) {
    return torch::nn::functional::cross_entropy(model->forward(tokens).reshape({-1, shape.vocab}), targets.reshape({-1}));
  };
  const double logits_error = relative_error(fp8->forward(tokens), plain->forward(tokens).detach());
  EXPECT_LT(logits_error, 0.05);
  EXPECT_GT(logits_error, 1e-4) << "the blocks' matmuls must be FP8's, not the plain Linears'";
  torch::optim::Adam plain_adam(plain->parameters(), 1e-3), fp8_adam(fp8->parameters(), 1e-3);
  for (int step = 0; step < 5; ++step) {
    plain_adam.zero_grad();
    fp8_adam.zero_grad();
    const torch::Tensor a = loss_of(plain), b = loss_of(fp8);
    a.backward();
    b.backward();
    for (const auto& item : fp8->named_parameters()) ASSERT_TRUE(item.value().grad().defined()) << item.key();
    plain_adam.step();
    fp8_adam.step();
    SCOPED_TRACE(step);
    EXPECT_NEAR(b.item<double>(), a.item<double>(), 0.01 * a.item<double>());
  }
}

}  // namespace
}  // namespace gpubench
