#include "harness/run/grad_scaler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "harness/run/amp_scaling_optimizer.h"
#include "harness/run/batch_source.h"
#include "harness/run/multi_tensor_adam.h"
#include "harness/run/trainer.h"
#include "workloads/workload.h"

// GradScaler on CPU tensors: the tensor-op fallback everywhere, and the ATen kernels where
// LibTorch has CPU ones (>= 2.3). The CUDA side is in gpu_training_test.cpp.
namespace gpubench {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Two parameters at zero under SGD(lr=1): after a step each equals minus its (unscaled) gradient.
struct Params {
  explicit Params(torch::Dtype dtype = torch::kFloat)
      : w(torch::zeros({5}, torch::TensorOptions().dtype(dtype).requires_grad(true))),
        b(torch::zeros({3}, torch::TensorOptions().dtype(dtype).requires_grad(true))),
        optimizer({w, b}, torch::optim::SGDOptions(1.0)) {}
  // Sets the gradients to `scale` times the given values, as backward of a scaled loss would.
  void set_scaled_grads(const torch::Tensor& gw, const torch::Tensor& gb, double scale) {
    w.mutable_grad() = (gw.to(torch::kDouble) * scale).to(w.scalar_type());
    b.mutable_grad() = (gb.to(torch::kDouble) * scale).to(b.scalar_type());
  }
  torch::Tensor w, b;
  torch::optim::SGD optimizer;
};

GradScaler make_scaler(GradScalerOptions options = {}, AmpKernels kernels = AmpKernels::TensorOps) {
  GradScaler scaler(options, kernels);
  scaler.scale(torch::ones({}));  // creates the scale on the CPU
  return scaler;
}

// One iteration with gradients `gw`/`gb` (unscaled values); returns whether it stepped.
bool iterate(GradScaler& scaler, Params& p, const torch::Tensor& gw, const torch::Tensor& gb) {
  p.set_scaled_grads(gw, gb, scaler.current_scale());
  const bool stepped = scaler.step(p.optimizer);
  scaler.update();
  return stepped;
}

torch::Tensor clean_w() { return torch::tensor({0.1f, -2.5f, 3.0e-5f, 7.0f, -0.001f}); }
torch::Tensor clean_b() { return torch::tensor({1.0f, 0.0f, -0.25f}); }

TEST(GradScaler, DefaultsArePyTorchs) {
  const GradScalerOptions options;
  EXPECT_EQ(options.init_scale, 65536.0);
  EXPECT_EQ(options.growth_factor, 2.0);
  EXPECT_EQ(options.backoff_factor, 0.5);
  EXPECT_EQ(options.growth_interval, 2000);
  GradScaler scaler;
  EXPECT_EQ(scaler.current_scale(), 0.0);  // no scale tensor before the first loss
  const torch::Tensor scaled = scaler.scale(torch::tensor(1.5f));
  EXPECT_EQ(scaled.item<float>(), 1.5f * 65536.0f);
  EXPECT_EQ(scaler.current_scale(), 65536.0);
  EXPECT_EQ(scaler.growth_tracker(), 0);
}

TEST(GradScaler, FiniteGradsAreUnscaledExactlyAndStepped) {
  GradScaler scaler = make_scaler();
  Params p;
  p.set_scaled_grads(clean_w(), clean_b(), scaler.current_scale());
  scaler.unscale(p.optimizer);
  // A power-of-two scale makes scaling and unscaling exact.
  EXPECT_TRUE(torch::equal(p.w.grad(), clean_w()));
  EXPECT_TRUE(torch::equal(p.b.grad(), clean_b()));
  EXPECT_TRUE(scaler.step(p.optimizer));  // no second unscale
  EXPECT_TRUE(torch::equal(p.w.detach(), -clean_w()));
  EXPECT_TRUE(torch::equal(p.b.detach(), -clean_b()));
  scaler.update();
  EXPECT_EQ(scaler.current_scale(), 65536.0);
  EXPECT_EQ(scaler.growth_tracker(), 1);
  EXPECT_EQ(scaler.skipped_steps(), 0);
  EXPECT_EQ(scaler.steps(), 1);
}

TEST(GradScaler, NonPowerOfTwoScaleUnscalesLikeTheKernel) {
  GradScalerOptions options;
  options.init_scale = 3.0;
  GradScaler scaler = make_scaler(options);
  Params p;
  const torch::Tensor scaled_w = clean_w() * 3.0f;
  p.w.mutable_grad() = scaled_w.clone();
  p.b.mutable_grad() = clean_b().clone();
  scaler.unscale(p.optimizer);
  const float inv = static_cast<float>(1.0 / 3.0);  // 1/scale in double, rounded to float
  EXPECT_TRUE(torch::equal(p.w.grad(), scaled_w * inv));
}

TEST(GradScaler, InfOrNanGradSkipsTheStepAndHalvesTheScale) {
  for (const float bad : {kInf, -kInf, kNaN}) {
    GradScaler scaler = make_scaler();
    Params p;
    iterate(scaler, p, clean_w(), clean_b());  // one clean step: tracker 1
    const torch::Tensor before = p.w.detach().clone();
    torch::Tensor gb = clean_b();
    gb[1] = bad;
    EXPECT_FALSE(iterate(scaler, p, clean_w(), gb)) << bad;
    EXPECT_TRUE(torch::equal(p.w.detach(), before)) << "parameters must not move on a skipped step";
    EXPECT_EQ(scaler.current_scale(), 32768.0);
    EXPECT_EQ(scaler.growth_tracker(), 0);
    EXPECT_EQ(scaler.skipped_steps(), 1);
    EXPECT_EQ(scaler.steps(), 2);
  }
}

TEST(GradScaler, GrowsAfterIntervalCleanStepsInARow) {
  GradScalerOptions options;
  options.growth_interval = 3;
  GradScaler scaler = make_scaler(options);
  Params p;
  for (int i = 0; i < 2; ++i) EXPECT_TRUE(iterate(scaler, p, clean_w(), clean_b()));
  EXPECT_EQ(scaler.current_scale(), 65536.0);
  EXPECT_EQ(scaler.growth_tracker(), 2);
  EXPECT_TRUE(iterate(scaler, p, clean_w(), clean_b()));
  EXPECT_EQ(scaler.current_scale(), 131072.0);
  EXPECT_EQ(scaler.growth_tracker(), 0);
  EXPECT_EQ(scaler.scale_growths(), 1);
}

TEST(GradScaler, AnInfRestartsTheCleanStepCount) {
  GradScalerOptions options;
  options.growth_interval = 3;
  GradScaler scaler = make_scaler(options);
  Params p;
  torch::Tensor bad = clean_w();
  bad[0] = kInf;
  iterate(scaler, p, clean_w(), clean_b());
  iterate(scaler, p, clean_w(), clean_b());
  iterate(scaler, p, bad, clean_b());  // 65536 -> 32768, count restarts
  iterate(scaler, p, clean_w(), clean_b());
  iterate(scaler, p, clean_w(), clean_b());
  EXPECT_EQ(scaler.current_scale(), 32768.0);
  EXPECT_EQ(scaler.growth_tracker(), 2);
  iterate(scaler, p, clean_w(), clean_b());
  EXPECT_EQ(scaler.current_scale(), 65536.0);
  EXPECT_EQ(scaler.skipped_steps(), 1);
  EXPECT_EQ(scaler.scale_growths(), 1);
}

TEST(GradScaler, NeverGrowsPastFloatRange) {
  GradScalerOptions options;
  options.init_scale = 3.0e38;
  options.growth_interval = 1;
  GradScaler scaler = make_scaler(options);
  Params p;
  iterate(scaler, p, torch::zeros({5}), torch::zeros({3}));
  EXPECT_EQ(scaler.current_scale(), static_cast<double>(3.0e38f));
  EXPECT_EQ(scaler.growth_tracker(), 0);
  EXPECT_EQ(scaler.scale_growths(), 0);
}

TEST(GradScaler, HalfPrecisionGradsAreUnscaledInFloatAndRoundedBack) {
  GradScaler scaler = make_scaler();
  Params p(torch::kHalf);
  const torch::Tensor scaled = (clean_w() * 4.0f).to(torch::kHalf);
  p.w.mutable_grad() = scaled.clone();
  p.b.mutable_grad() = clean_b().to(torch::kHalf);
  scaler.unscale(p.optimizer);
  const torch::Tensor expected = (scaled.to(torch::kFloat) * (1.0f / 65536.0f)).to(torch::kHalf);
  EXPECT_EQ(p.w.grad().scalar_type(), torch::kHalf);
  EXPECT_TRUE(torch::equal(p.w.grad(), expected));
}

TEST(GradScaler, MisuseIsAnErrorThatSaysWhat) {
  {
    GradScaler scaler;
    Params p;
    EXPECT_THROW(scaler.step(p.optimizer), std::logic_error);  // before scale()
    EXPECT_THROW(scaler.update(), std::logic_error);
  }
  {
    GradScaler scaler = make_scaler();
    Params p;
    p.set_scaled_grads(clean_w(), clean_b(), 65536.0);
    scaler.step(p.optimizer);
    EXPECT_THROW(scaler.step(p.optimizer), std::logic_error);  // twice without update()
    scaler.update();
    EXPECT_THROW(scaler.update(), std::logic_error);  // no check recorded since
  }
  {
    GradScaler scaler = make_scaler();
    Params p;
    p.set_scaled_grads(clean_w(), clean_b(), 65536.0);
    scaler.unscale(p.optimizer);
    EXPECT_THROW(scaler.unscale(p.optimizer), std::logic_error);
  }
}

TEST(GradScaler, UnscaleWithoutStepStillUpdates) {
  GradScaler scaler = make_scaler();
  Params p;
  torch::Tensor bad = clean_w();
  bad[2] = kNaN;
  p.set_scaled_grads(bad, clean_b(), 65536.0);
  scaler.unscale(p.optimizer);
  scaler.update();  // what it found decides the update, as in PyTorch
  EXPECT_EQ(scaler.current_scale(), 32768.0);
}

TEST(GradScaler, RejectsBadOptionsNamingThem) {
  const auto message = [](GradScalerOptions options) {
    try {
      GradScaler scaler(options);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  GradScalerOptions o;
  o.init_scale = 0;
  EXPECT_NE(message(o).find("init_scale"), std::string::npos);
  o = {};
  o.growth_factor = 1.0;
  EXPECT_NE(message(o).find("growth_factor"), std::string::npos);
  o = {};
  o.backoff_factor = 1.0;
  EXPECT_NE(message(o).find("backoff_factor"), std::string::npos);
  o = {};
  o.growth_interval = 0;
  EXPECT_NE(message(o).find("growth_interval"), std::string::npos);
}

TEST(GradScaler, WritesItsSectionOfTheResult) {
  GradScalerOptions options;
  options.growth_interval = 2;
  GradScaler scaler = make_scaler(options);
  Params p;
  torch::Tensor bad = clean_w();
  bad[0] = kInf;
  iterate(scaler, p, clean_w(), clean_b());
  iterate(scaler, p, clean_w(), clean_b());  // growth to 131072
  iterate(scaler, p, bad, clean_b());        // backoff to 65536
  nlohmann::json result;
  scaler.write_result(result);
  const auto& section = result.at("grad_scaler");
  EXPECT_EQ(section.at("init_scale").get<double>(), 65536.0);
  EXPECT_EQ(section.at("final_scale").get<double>(), 65536.0);
  EXPECT_EQ(section.at("growth_factor").get<double>(), 2.0);
  EXPECT_EQ(section.at("backoff_factor").get<double>(), 0.5);
  EXPECT_EQ(section.at("growth_interval").get<int>(), 2);
  EXPECT_EQ(section.at("steps").get<int>(), 3);
  EXPECT_EQ(section.at("skipped_steps").get<int>(), 1);
  EXPECT_EQ(section.at("scale_growths").get<int>(), 1);
  EXPECT_EQ(section.at("unscale_kernel").get<std::string>(), "tensor-ops");
}

TEST(GradScaler, AutoPicksLibTorchsKernelsOnCpuAndCuda) {
  EXPECT_TRUE(GradScaler::aten_kernels_available(c10::DeviceType::CUDA));
  EXPECT_TRUE(GradScaler::aten_kernels_available(c10::DeviceType::CPU));
  GradScaler scaler = make_scaler({}, AmpKernels::Auto);
  Params p;
  iterate(scaler, p, clean_w(), clean_b());
  EXPECT_EQ(scaler.unscale_kernel(), "aten");
}

// The fallback must compute what PyTorch's kernels compute, bit for bit.
TEST(GradScaler, FallbackMatchesTheAtenKernelsOnCpu) {
  GradScalerOptions options;
  options.init_scale = 1000.0;  // not a power of two: rounding must agree too
  options.growth_interval = 2;
  GradScaler aten = make_scaler(options, AmpKernels::Aten);
  GradScaler fallback = make_scaler(options, AmpKernels::TensorOps);
  Params pa, pf;
  torch::manual_seed(7);
  for (int i = 0; i < 7; ++i) {
    torch::Tensor gw = torch::randn({5});
    const torch::Tensor gb = torch::randn({3});
    if (i == 3) gw[1] = kInf;
    if (i == 5) gw[4] = kNaN;
    pa.set_scaled_grads(gw, gb, aten.current_scale());
    pf.set_scaled_grads(gw, gb, fallback.current_scale());
    aten.unscale(pa.optimizer);
    fallback.unscale(pf.optimizer);
    EXPECT_TRUE(torch::equal(pa.w.grad().nan_to_num(), pf.w.grad().nan_to_num())) << "iteration " << i;
    EXPECT_TRUE(torch::equal(pa.b.grad(), pf.b.grad())) << "iteration " << i;
    EXPECT_EQ(aten.step(pa.optimizer), fallback.step(pf.optimizer)) << "iteration " << i;
    aten.update();
    fallback.update();
    EXPECT_EQ(aten.current_scale(), fallback.current_scale()) << "iteration " << i;
    EXPECT_EQ(aten.growth_tracker(), fallback.growth_tracker()) << "iteration " << i;
  }
  EXPECT_EQ(aten.unscale_kernel(), "aten");
  EXPECT_EQ(fallback.unscale_kernel(), "tensor-ops");
}

// In fp32 a power-of-two scale is exact, so training through the GradScaler must give the
// same losses as training without one: the Trainer's scale/step/update wiring is right.
// Six mlp steps on the CPU from seed 11 through `scaler`, with plain Adam or fused Adam.
TrainingRun train_mlp(LossScaler& scaler, bool fused_adam = false) {
  torch::manual_seed(11);
  const auto workload = make_workload("mlp");
  Model model = workload->make_model();
  const torch::optim::AdamOptions options(1e-3);
  std::unique_ptr<torch::optim::Adam> optimizer =
      fused_adam ? std::make_unique<MultiTensorAdam>(model.module->parameters(), options, MultiTensorAdam::Kernel::Fused)
                 : std::make_unique<torch::optim::Adam>(model.module->parameters(), options);
  LoaderOptions loader;
  loader.batch_size = 32;
  LoaderBatchSource source(workload->make_dataset({256, 3, ""}), loader, torch::kCPU);
  ProbeSet probes;
  TrainerSpec spec;
  spec.stopping.exact = true;
  spec.stopping.max_steps = 6;
  spec.config_id = "mlp/cpu/fp32";
  return Trainer(spec, probes).run(model, *optimizer, *workload, source, scaler);
}

TEST(GradScaler, TrainingThroughItMatchesNoScalingInFp32) {
  const auto train = [](LossScaler& scaler) { return train_mlp(scaler); };
  PassThroughScaler none;
  GradScaler scaler;
  const TrainingRun plain = train(none);
  const TrainingRun scaled = train(scaler);
  EXPECT_EQ(scaled.optimizer_steps_skipped, 0);
  EXPECT_EQ(scaler.steps(), 6);
  EXPECT_EQ(scaled.losses, plain.losses);
}

// PyTorch's AMP + fused path: the scaler only checks, the fused kernel unscales (exact for
// a power-of-two scale) and skips on inf, so training matches unscaled fused Adam.
TEST(GradScaler, FusedAdamUnscalesInItsKernelAndTrainsTheSame) {
  const auto train = [](LossScaler& scaler) { return train_mlp(scaler, /*fused_adam=*/true); };
  PassThroughScaler none;
  GradScaler scaler;
  const TrainingRun plain = train(none);
  const TrainingRun scaled = train(scaler);
  EXPECT_EQ(scaled.losses, plain.losses);
  nlohmann::json result;
  scaler.write_result(result);
  EXPECT_EQ(result["grad_scaler"]["unscaled_in_optimizer_steps"], 6) << result.dump();
  EXPECT_EQ(result["grad_scaler"]["skipped_steps"], 0);
}

TEST(GradScaler, FusedAdamSkipsAnInfStepOnTheDeviceStepCountsIncluded) {
  torch::manual_seed(0);
  auto w = torch::randn({8}).requires_grad_();
  MultiTensorAdam adam({w}, torch::optim::AdamOptions(1e-2), MultiTensorAdam::Kernel::Fused);
  GradScaler scaler = make_scaler();
  const auto step_with = [&](const torch::Tensor& grad) {
    w.mutable_grad() = grad * scaler.current_scale();
    const bool stepped = scaler.step(adam);
    scaler.update();
    return stepped;
  };
  ASSERT_TRUE(step_with(torch::ones({8})));
  const torch::Tensor after_one = w.detach().clone();
  torch::Tensor bad = torch::ones({8});
  bad[3] = kNaN;
  // The kernel skips on the device; step() reads nothing back, so it cannot say (true).
  EXPECT_TRUE(step_with(bad));
  EXPECT_TRUE(torch::equal(w.detach(), after_one)) << "a skipped step must not move the parameter";
  EXPECT_EQ(scaler.skipped_steps(), 1) << "counted on the device, read when asked";
  EXPECT_EQ(scaler.current_scale(), 32768.0);
  const auto& state = static_cast<torch::optim::AdamParamState&>(*adam.state().at(w.unsafeGetTensorImpl()));
  adam.read_step_counts_from_device();  // the host's Adam state catches up once, at the end
  EXPECT_EQ(state.step(), 1);
  ASSERT_TRUE(step_with(torch::ones({8})));
  adam.read_step_counts_from_device();
  EXPECT_EQ(state.step(), 2);
  EXPECT_FALSE(torch::equal(w.detach(), after_one));
  EXPECT_EQ(scaler.steps(), 3);
}

// An optimizer that unscales in its kernel, recording the found_inf it is handed.
class RecordingScaledSgd final : public torch::optim::SGD, public AmpScalingOptimizer {
 public:
  using torch::optim::SGD::SGD;
  bool supports_amp_scaling() const override { return true; }
  void step_scaled(const torch::Tensor&, const torch::Tensor& found_inf) override {
    seen.push_back(found_inf.item<float>());
  }
  std::vector<float> seen;
};

// PyTorch's fused kernels skip only when *found_inf == 1 (fused_adam_utils.cuh): the flag
// was summed over the (device, dtype) groups, so inf in two groups handed 2 to the kernel,
// which then applied an inf update and took 2 off the step counts. One flag, 0 or 1.
TEST(GradScaler, FoundInfIsOneFlagWhateverHowManyDtypeGroupsOverflow) {
  auto w = torch::zeros({4}, torch::TensorOptions().dtype(torch::kFloat).requires_grad(true));
  auto v = torch::zeros({4}, torch::TensorOptions().dtype(torch::kDouble).requires_grad(true));
  RecordingScaledSgd optimizer(std::vector<torch::Tensor>{w, v}, torch::optim::SGDOptions(1.0));
  for (const AmpKernels kernels : {AmpKernels::TensorOps, AmpKernels::Auto}) {
    GradScaler scaler = make_scaler({}, kernels);
    optimizer.seen.clear();
    w.mutable_grad() = torch::full({4}, kInf, torch::kFloat);
    v.mutable_grad() = torch::full({4}, kNaN, torch::kDouble);
    scaler.step(optimizer);
    scaler.update();
    w.mutable_grad() = torch::ones({4}, torch::kFloat);
    v.mutable_grad() = torch::ones({4}, torch::kDouble);
    scaler.step(optimizer);
    scaler.update();
    EXPECT_EQ(optimizer.seen, (std::vector<float>{1.0F, 0.0F})) << "two overflowing groups, then none";
    EXPECT_EQ(scaler.skipped_steps(), 1);
  }
}

}  // namespace
}  // namespace gpubench
