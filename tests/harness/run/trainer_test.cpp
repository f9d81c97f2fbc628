#include "harness/run/trainer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/profile/phase_timer.h"
#include "harness/run/checkpoint_check.h"
#include "workloads/workload.h"

namespace gpubench {
namespace {

// Records the order of probe calls, to check the Trainer's scope nesting.
class CallLog final : public Probe {
 public:
  std::string name() const override { return "log"; }
  void run_begin(const std::string& id) override { calls.push_back("run:" + id); }
  void run_end() override { calls.push_back("/run"); }
  void step_begin(int step, bool measured) override { calls.push_back("step:" + std::to_string(step) + (measured ? "" : "w")); }
  void step_end(int, bool) override { calls.push_back("/step"); }
  void phase_begin(Phase phase) override { calls.push_back(phase_name(phase)); }
  void phase_end(Phase) override { calls.push_back("/phase"); }
  std::vector<std::string> calls;
};

LoaderOptions batches_of(std::int64_t batch_size) {
  LoaderOptions options;
  options.batch_size = batch_size;
  return options;
}

struct Fixture {
  std::unique_ptr<Workload> workload = make_workload("mlp");
  Model model = workload->make_model();
  torch::optim::Adam optimizer{model.module->parameters(), torch::optim::AdamOptions(1e-3)};
  LoaderBatchSource source{workload->make_dataset({256, 3, ""}), batches_of(32), torch::kCPU};
  PassThroughScaler scaler;
};

// A Fixture whose model starts from the same weights every time.
struct Seed {
  explicit Seed(std::uint64_t seed) { torch::manual_seed(seed); }
};
struct SeededFixture : Seed, Fixture {
  SeededFixture() : Seed(7) {}
};

// `warmup` steps, then exactly `steps` measured ones.
TrainerSpec exact_spec(int warmup, int steps) {
  TrainerSpec spec;
  spec.warmup_steps = warmup;
  spec.stopping.exact = true;
  spec.stopping.max_steps = steps;
  return spec;
}

TEST(Trainer, RunsWarmupThenExactStepsWithNestedPhases) {
  Fixture f;
  CallLog log;
  TrainerSpec spec = exact_spec(1, 2);
  spec.config_id = "mlp/cpu/fp32";
  const TrainingRun run = Trainer(spec, log).run(f.model, f.optimizer, *f.workload, f.source, f.scaler);
  EXPECT_EQ(run.losses.size(), 3u);
  EXPECT_EQ(run.stop_reason, "steps");
  const std::vector<std::string> step = {"data", "/phase", "h2d", "/phase", "forward", "/phase",
                                         "backward", "/phase", "optimizer", "/phase", "/step"};
  std::vector<std::string> expected = {"run:mlp/cpu/fp32", "step:0w"};
  expected.insert(expected.end(), step.begin(), step.end());
  expected.push_back("step:1");
  expected.insert(expected.end(), step.begin(), step.end());
  expected.push_back("step:2");
  expected.insert(expected.end(), step.begin(), step.end());
  expected.push_back("/run");
  EXPECT_EQ(log.calls, expected);
  EXPECT_EQ(run.last_batch.data.size(0), 32);
}

TEST(Trainer, PhaseTimerSeesOnlyMeasuredSteps) {
  Fixture f;
  PhaseTimer timer;
  TrainerSpec spec;
  spec.warmup_steps = 2;
  spec.stopping.exact = true;
  spec.stopping.max_steps = 4;
  Trainer(spec, timer).run(f.model, f.optimizer, *f.workload, f.source, f.scaler);
  ASSERT_EQ(timer.step_ms().size(), 4u);
  for (Phase phase : kAllPhases) EXPECT_EQ(timer.phase_ms(phase).size(), 4u);
  double phases = 0;
  for (Phase phase : kAllPhases) phases += timer.phase_ms(phase)[0];
  EXPECT_LE(phases, timer.step_ms()[0] + 1e-6) << "phases nest inside their step";
  EXPECT_GT(timer.phase_ms(Phase::Backward)[0], 0);
}

// A budgeted run (max 6 steps) of `delay_ms` steps: how many it measured and why it stopped.
std::pair<std::size_t, std::string> budgeted_run(int min_steps, double budget_s, double delay_ms) {
  Fixture f;
  PhaseTimer timer;
  TrainerSpec spec;
  spec.warmup_steps = 1;  // the first step's lazy set-up stays out of the measured ones
  spec.stopping.min_steps = min_steps;
  spec.stopping.max_steps = 6;
  spec.stopping.budget_s = budget_s;
  spec.test_delay_ms = delay_ms;
  const auto run = Trainer(spec, timer).run(f.model, f.optimizer, *f.workload, f.source, f.scaler);
  return {timer.step_ms().size(), run.stop_reason};
}

TEST(Trainer, BudgetedRunStopsByItself) {
  // Two 600 ms steps spend it; one does not, even 400 ms late on a loaded machine (CI's
  // -j2 once made a 200 ms step 150 ms late; a profiler beside -j2 a 300 ms step 200 ms).
  EXPECT_EQ(budgeted_run(2, 1.0, 600), std::make_pair(std::size_t{2}, std::string("time_budget")));
}

TEST(Trainer, OneStepLongerThanTheBudgetStopsBeforeMinSteps) {
  // Every step outlasts a zero budget.
  EXPECT_EQ(budgeted_run(3, 0, 0), std::make_pair(std::size_t{1}, std::string("slow_step")));
}

TEST(Trainer, RanksAgreeOnTheCountOnceAfterWarmUp) {
  Fixture f;
  PhaseTimer timer;
  TrainerSpec spec = exact_spec(2, 9);
  std::vector<double> asked;
  spec.agree_on_step_count = [&](double last_warmup_ms) {
    asked.push_back(last_warmup_ms);
    return 4;
  };
  const auto run = Trainer(spec, timer).run(f.model, f.optimizer, *f.workload, f.source, f.scaler);
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_GT(asked[0], 0) << "the warm-up step was clocked";
  EXPECT_EQ(run.agreed_steps, 4);
  EXPECT_EQ(run.step_ms.size(), 4u);
  EXPECT_EQ(run.losses.size(), 6u) << "2 warm-up + the agreed 4";
}

// By default nothing waits for the device inside a step (a Python loop's behaviour); with
// sync_phases every phase ends with a sync; sync_each_phase overrides it per step
// (--overhead --sync-phases leaves its bare steps a plain loop).
TEST(Trainer, PhasesSyncOnlyWhereAsked) {
  const auto syncs_of = [](bool sync_phases, std::function<bool(int)> per_step) {
    Fixture f;
    ProbeSet none;
    int syncs = 0;
    TrainerSpec spec = exact_spec(1, 3);
    spec.synchronize = [&] { ++syncs; };
    spec.sync_phases = sync_phases;
    spec.sync_each_phase = std::move(per_step);
    const TrainingRun run = Trainer(spec, none).run(f.model, f.optimizer, *f.workload, f.source, f.scaler);
    EXPECT_EQ(run.step_ms.size(), 3u) << "measured steps only, each on the Trainer's own clock";
    for (double ms : run.step_ms) EXPECT_GT(ms, 0);
    return syncs;
  };
  EXPECT_EQ(syncs_of(false, {}), 0);
  EXPECT_EQ(syncs_of(true, {}), 5 * 4) << "one per phase of every step, warm-up included";
  EXPECT_EQ(syncs_of(true, [](int step) { return step != 2; }), 5 * 3) << "step 2 is bare";
}

// Under --sync-phases a multi-rank step's backward ends on the device before the gradient
// sync's final wait begins: that wait (the exposed communication the comm-bound verdict
// reads) must not hold the GPU's remaining backward.
class LoggedSync final : public GradientSync {
 public:
  explicit LoggedSync(std::vector<std::string>& log) : log_(log) {}
  void begin_forward(bool) override {}
  void begin_backward(bool) override { log_.push_back("begin_backward"); }
  void finish_backward() override { log_.push_back("finish_backward"); }
  void after_optimizer_step() override {}

 private:
  std::vector<std::string>& log_;
};

TEST(Trainer, SyncedPhasesWaitForTheDevicesBackwardBeforeTheLastReduction) {
  Fixture f;
  ProbeSet none;
  std::vector<std::string> log;
  LoggedSync sync(log);
  TrainerSpec spec = exact_spec(0, 1);
  spec.gradient_sync = &sync;
  spec.sync_phases = true;
  spec.synchronize = [&] { log.push_back("sync"); };
  Trainer(spec, none).run(f.model, f.optimizer, *f.workload, f.source, f.scaler);
  const auto begin = std::find(log.begin(), log.end(), "begin_backward");
  const auto finish = std::find(log.begin(), log.end(), "finish_backward");
  ASSERT_NE(finish, log.end());
  EXPECT_NE(std::find(begin, finish, "sync"), finish) << "no device sync between backward() and the final wait";
}

// Logs when the Trainer starts and waits for each loss, in the probes' call order.
class LoggedReadback final : public LossReadback {
 public:
  explicit LoggedReadback(std::vector<std::string>& log, std::vector<double> values = {})
      : log_(log), values_(std::move(values)) {}
  void start(const torch::Tensor& loss) override {
    log_.push_back("start");
    pending_.push_back(values_.empty() ? loss.item<double>() : values_[started_]);
    ++started_;
  }
  double wait_oldest() override {
    log_.push_back("wait");
    const double value = pending_.front();
    pending_.erase(pending_.begin());
    return value;
  }
  std::size_t pending() const override { return pending_.size(); }

 private:
  std::vector<std::string>& log_;
  std::vector<double> values_;
  std::vector<double> pending_;
  std::size_t started_ = 0;
};

// Step N's loss is waited for inside step N+1, after N+1's phases are queued, and the last
// one after the last step: the device always has the next step queued while the host reads.
TEST(Trainer, EachLossIsReadOneStepLateInsideTheNextStep) {
  SeededFixture f;
  CallLog log;
  TrainerSpec spec = exact_spec(1, 2);
  auto readback = std::make_shared<LoggedReadback>(log.calls);
  spec.loss_readback = readback;
  const TrainingRun run = Trainer(spec, log).run(f.model, f.optimizer, *f.workload, f.source, f.scaler);
  std::vector<std::string> reads;  // the loss calls with the step boundaries around them
  for (const auto& call : log.calls)
    if (call == "start" || call == "wait" || call.rfind("step:", 0) == 0 || call == "/step" || call == "/run")
      reads.push_back(call);
  EXPECT_EQ(reads, (std::vector<std::string>{"step:0w", "start", "/step", "step:1", "start", "wait", "/step", "step:2",
                                             "start", "wait", "/step", "wait", "/run"}));
  ASSERT_EQ(run.losses.size(), 3u);

  SeededFixture same_seed;  // the same losses as a host read each step would give
  ProbeSet none;
  const TrainingRun direct = Trainer(exact_spec(1, 2), none).run(same_seed.model, same_seed.optimizer,
                                                                 *same_seed.workload, same_seed.source, same_seed.scaler);
  EXPECT_EQ(run.losses, direct.losses);
}

TEST(Trainer, ALateNonFiniteLossNamesItsOwnStep) {
  Fixture f;
  std::vector<std::string> log;
  ProbeSet none;
  TrainerSpec spec = exact_spec(0, 5);
  spec.loss_readback = std::make_shared<LoggedReadback>(
      log, std::vector<double>{2.0, 1.9, std::numeric_limits<double>::infinity(), 1.7, 1.6});
  try {
    Trainer(spec, none).run(f.model, f.optimizer, *f.workload, f.source, f.scaler);
    FAIL() << "inf loss was not detected";
  } catch (const TrainingFailure& error) {
    EXPECT_STREQ(error.what(), "loss became inf at step 2");
  }
  EXPECT_EQ(std::count(log.begin(), log.end(), "start"), 4) << "found while step 3 ran, not after the run";
}

TEST(Trainer, NonFiniteLossFailsTheConfigWithTheStep) {
  Fixture f;
  {
    torch::NoGradGuard no_grad;
    for (auto& p : f.model.module->parameters()) p.fill_(std::numeric_limits<float>::quiet_NaN());
  }
  ProbeSet none;
  TrainerSpec spec;
  spec.stopping.exact = true;
  spec.stopping.max_steps = 3;
  try {
    Trainer(spec, none).run(f.model, f.optimizer, *f.workload, f.source, f.scaler);
    FAIL() << "NaN loss was not detected";
  } catch (const TrainingFailure& error) {
    EXPECT_STREQ(error.what(), "loss became NaN at step 0");
  }
}

// The same 4B samples, once as one batch, once as 4 accumulated micro-batches of B.
class FixedBatches final : public BatchSource {
 public:
  FixedBatches(torch::Tensor data, torch::Tensor target, std::int64_t batch)
      : data_(std::move(data)), target_(std::move(target)), batch_(batch) {}
  Batch next() override {
    const std::int64_t start = (next_++ * batch_) % data_.size(0);
    return Batch(data_.narrow(0, start, batch_), target_.narrow(0, start, batch_));
  }
  Batch to_device(Batch host) override { return host; }

 private:
  torch::Tensor data_, target_;
  std::int64_t batch_;
  std::int64_t next_ = 0;
};

TEST(Trainer, FourAccumulatedMicroBatchesStepAsOneBatchOfFourTimesTheSize) {
  torch::manual_seed(3);
  const torch::Tensor data = torch::randn({64, 1, 28, 28});
  const torch::Tensor target = torch::randint(0, 10, {64});
  const auto parameters_after_one_step = [&](int accumulate, std::int64_t batch) {
    SeededFixture f;
    FixedBatches source(data, target, batch);
    // SGD: the update is the gradient itself (Adam's first step is about lr * sign(g), which
    // would hide a wrong gradient and flip on a near-zero one).
    torch::optim::SGD sgd(f.model.module->parameters(), torch::optim::SGDOptions(0.1));
    ProbeSet none;
    TrainerSpec spec = exact_spec(0, 1);
    spec.accumulate = accumulate;
    const TrainingRun run = Trainer(spec, none).run(f.model, sgd, *f.workload, source, f.scaler);
    EXPECT_EQ(run.losses.size(), 1u);
    std::vector<torch::Tensor> parameters;
    for (const auto& p : f.model.module->parameters()) parameters.push_back(p.detach().clone());
    return std::make_pair(parameters, run.losses[0]);
  };
  const auto [accumulated, accumulated_loss] = parameters_after_one_step(4, 16);
  const auto [whole, whole_loss] = parameters_after_one_step(1, 64);
  ASSERT_EQ(accumulated.size(), whole.size());
  for (std::size_t i = 0; i < whole.size(); ++i)
    EXPECT_TRUE(torch::allclose(accumulated[i], whole[i], /*rtol=*/1e-5, /*atol=*/1e-6)) << "parameter " << i;
  EXPECT_NEAR(accumulated_loss, whole_loss, 1e-5 * std::abs(whole_loss)) << "the step's loss is the micro-batches' mean";
}

TEST(Checkpoint, RoundTripIsBitwiseAndDetectsADifference) {
  Fixture f;
  ProbeSet none;
  TrainerSpec spec;
  spec.stopping.exact = true;
  spec.stopping.max_steps = 2;
  const auto run = Trainer(spec, none).run(f.model, f.optimizer, *f.workload, f.source, f.scaler);
  const auto check = check_checkpoint_round_trip(*f.workload, f.model, f.optimizer, run.last_batch.data, "/tmp/gpubench-ckpt-test.pt");
  EXPECT_TRUE(check.parameters_equal) << check.mismatch;
  EXPECT_TRUE(check.outputs_equal);
  EXPECT_GT(check.bytes, 3u * 1863690u * 4u) << "params + Adam's two moments";
  EXPECT_GE(check.save_ms, 0);
}

}  // namespace
}  // namespace gpubench
