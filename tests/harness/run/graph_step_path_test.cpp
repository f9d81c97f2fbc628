// The Trainer's graph path on the CPU (issue 47, finding 9): what runs inside the recorded
// step. A stand-in graph records the body at capture and runs it on each replay, as
// CUDA replays the recorded kernels; the real capture runs on the GPU machine
// (gpu_training_test.cpp: GraphReplaysTrainLikeEagerFusedAdam).
#include <gtest/gtest.h>

#include <ATen/autocast_mode.h>

#include "harness/run/trainer.h"
#include "workloads/workload.h"

namespace gpubench {
namespace {

// Replays by running the recorded body again. The gradients are set to none first: a CUDA
// replay rewrites the gradients the captured backward allocated, it does not add to them.
class ReplayingStepGraph final : public StepGraph {
 public:
  explicit ReplayingStepGraph(std::vector<torch::Tensor> parameters) : parameters_(std::move(parameters)) {}
  bool captured() const override { return static_cast<bool>(body_); }
  void capture(const std::function<void()>& body) override { body_ = body; }
  void replay() override {
    for (auto& parameter : parameters_) parameter.mutable_grad() = torch::Tensor();
    body_();
    ++replays;
  }
  int replays = 0;

 private:
  std::vector<torch::Tensor> parameters_;
  std::function<void()> body_;
};

// Notes whether CPU autocast was on where backward reached the loss and at step/update.
class AutocastRecordingScaler final : public LossScaler {
 public:
  torch::Tensor scale(const torch::Tensor& loss) override {
    torch::Tensor scaled = loss * 1;
    scaled.register_hook([this](const torch::Tensor& grad) {
      backward_under_autocast |= at::autocast::is_autocast_enabled(c10::DeviceType::CPU);
      return grad;
    });
    return scaled;
  }
  bool step(torch::optim::Optimizer& optimizer) override {
    optimizer_under_autocast |= at::autocast::is_autocast_enabled(c10::DeviceType::CPU);
    return LossScaler::step(optimizer);
  }
  bool backward_under_autocast = false;
  bool optimizer_under_autocast = false;
};

struct Bf16Run {
  std::vector<double> losses;
  std::vector<torch::Tensor> parameters;
  bool backward_under_autocast = false;
  bool optimizer_under_autocast = false;
  int replays = 0;
};

// mlp on the CPU under bf16 autocast: 1 eager warm-up step, then 3 measured steps, eager
// or replayed from the stand-in graph.
Bf16Run run_bf16(bool graph) {
  torch::manual_seed(7);
  const std::unique_ptr<Workload> workload = make_workload("mlp");
  Model model = workload->make_model();
  torch::optim::Adam optimizer(model.module->parameters(), torch::optim::AdamOptions(1e-3));
  LoaderOptions loader;
  loader.batch_size = 32;
  LoaderBatchSource source(workload->make_dataset({256, 3, ""}), loader, torch::kCPU);
  AutocastRecordingScaler scaler;
  ReplayingStepGraph replaying(model.module->parameters());
  TrainerSpec spec;
  spec.autocast = true;
  spec.autocast_dtype = torch::kBFloat16;
  spec.warmup_steps = 1;
  spec.stopping.exact = true;
  spec.stopping.max_steps = 3;
  if (graph) spec.graph = &replaying;
  ProbeSet none;
  Bf16Run run;
  run.losses = Trainer(spec, none).run(model, optimizer, *workload, source, scaler).losses;
  for (const auto& p : model.module->parameters()) run.parameters.push_back(p.detach().clone());
  run.backward_under_autocast = scaler.backward_under_autocast;
  run.optimizer_under_autocast = scaler.optimizer_under_autocast;
  run.replays = replaying.replays;
  return run;
}

// Before the fix the captured body held autocast over backward, scale, step and update,
// where the eager step autocasts forward and loss only: any op of backward or of the
// optimizer that autocast lists would have been cast, and the weights' 16-bit copies stayed
// cached through the optimizer step.
TEST(GraphStepPath, BackwardAndOptimizerRunOutsideAutocastAsInEager) {
  const Bf16Run graph = run_bf16(true);
  EXPECT_EQ(graph.replays, 3);
  EXPECT_FALSE(graph.backward_under_autocast);
  EXPECT_FALSE(graph.optimizer_under_autocast);
}

// The whole graph path, warm-up, capture and replays, trains step for step as the eager
// path does: the same losses, the same weights. (mlp's backward matmuls take bf16 inputs
// either way, so this held before the fix too; it guards the path.)
TEST(GraphStepPath, ReplayedStepsTrainAsTheEagerStepsDo) {
  const Bf16Run graph = run_bf16(true);
  const Bf16Run eager = run_bf16(false);
  EXPECT_FALSE(eager.backward_under_autocast);
  ASSERT_EQ(graph.losses.size(), 4u);
  EXPECT_EQ(graph.losses, eager.losses);
  ASSERT_EQ(graph.parameters.size(), eager.parameters.size());
  for (std::size_t i = 0; i < eager.parameters.size(); ++i)
    EXPECT_TRUE(torch::equal(graph.parameters[i], eager.parameters[i])) << "parameter " << i;
}

}  // namespace
}  // namespace gpubench
