// The sharded modes on one rank (a Gloo group of one, in this process): the collectives
// are copies, so zero1, zero2 and fsdp must train exactly as one plain process does; what
// fsdp frees when; a parameter used after its unit freed it fails instead of reading
// freed memory. Across real ranks: sharded_ranks_test.cpp.
#include "harness/parallel/sharded_data_parallel.h"

#include <gtest/gtest.h>

#include <future>

#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include "harness/parallel/gradient_reducer.h"
#include "support/copying_group.h"
#include "workloads/workload.h"

namespace gpubench {
namespace {

c10::intrusive_ptr<CollectiveGroup> one_rank_group() {
  GroupRequest request;
  request.backend = "gloo";
  request.store = c10::make_intrusive<c10d::HashStore>();
  return make_process_group(request);
}

struct Batch2 {
  torch::Tensor input, target;
};

// Deterministic batches for a workload's model.
std::vector<Batch2> batches(const std::string& workload, int count) {
  torch::manual_seed(11);
  std::vector<Batch2> out;
  for (int i = 0; i < count; ++i) {
    if (workload == "mlp") out.push_back({torch::randn({8, 1, 28, 28}), torch::randint(0, 10, {8})});
    if (workload == "cnn") out.push_back({torch::randn({8, 3, 32, 32}), torch::randint(0, 10, {8})});
    if (workload == "transformer") {
      const auto tokens = torch::randint(0, 4096, {2, 129});
      out.push_back({tokens.narrow(1, 0, 128), tokens.narrow(1, 1, 128)});
    }
  }
  return out;
}

// The Trainer's order of calls, one micro-batch a step.
std::vector<double> train(Model& model, torch::optim::Optimizer& optimizer, GradientSync* sync, const Workload& workload,
                          const std::vector<Batch2>& data) {
  std::vector<double> losses;
  for (const auto& batch : data) {
    if (sync) sync->begin_forward(true);
    const torch::Tensor loss = workload.loss(model.forward(batch.input), batch.target);
    optimizer.zero_grad();
    if (sync) sync->begin_backward(false);
    loss.backward();
    if (sync) sync->finish_backward();
    optimizer.step();
    if (sync) sync->after_optimizer_step();
    losses.push_back(loss.item<double>());
  }
  return losses;
}

void copy_parameters(const Model& from, Model& to) {
  torch::NoGradGuard no_grad;
  const auto source = from.module->parameters();
  auto target = to.module->parameters();
  for (std::size_t i = 0; i < source.size(); ++i) target[i].copy_(source[i]);
}

TEST(ShardedDataParallel, OnOneRankEveryModeTrainsExactlyAsOneProcess) {
  for (const std::string name : {"mlp", "cnn", "transformer"})
    for (const ParallelMode mode : {ParallelMode::Zero1, ParallelMode::Zero2, ParallelMode::Fsdp}) {
      const std::string what = name + " " + to_string(mode);
      const auto workload = make_workload(name);
      ModelTechniques techniques;
      techniques.checkpoint = name == "cnn";  // fsdp's hooks around a recomputed unit
      Model plain = workload->make_model_with(techniques), sharded = workload->make_model_with(techniques);
      copy_parameters(plain, sharded);
      const auto group = one_rank_group();
      ShardedOptions options;
      options.mode = mode;
      ShardedDataParallel sync(sharded, *group, options, std::make_shared<CommRecorder>());
      torch::optim::Adam plain_adam(plain.module->parameters(), torch::optim::AdamOptions(1e-3));
      torch::optim::Adam sharded_adam(sync.optimizer_parameters(), torch::optim::AdamOptions(1e-3));
      const auto data = batches(name, 3);
      const auto plain_losses = train(plain, plain_adam, nullptr, *workload, data);
      const auto sharded_losses = train(sharded, sharded_adam, &sync, *workload, data);
      for (std::size_t step = 0; step < data.size(); ++step)
        EXPECT_NEAR(sharded_losses[step], plain_losses[step], 1e-6 * std::abs(plain_losses[step])) << what << " step " << step;
      sync.gather_whole_model();
      const auto a = plain.module->parameters(), b = sharded.module->parameters();
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t i = 0; i < a.size(); ++i)
        EXPECT_TRUE(torch::allclose(b[i], a[i], 1e-6, 1e-7)) << what << ": parameter " << i << " differs";
    }
}

TEST(ShardedDataParallel, FsdpFreesEachUnitAfterItsUseAndKeepsTheLastForBackward) {
  const auto workload = make_workload("mlp");  // units fc1, fc2, fc3; no root
  Model model = workload->make_model();
  const auto group = one_rank_group();
  ShardedOptions options;
  options.mode = ParallelMode::Fsdp;
  ShardedDataParallel sync(model, *group, options, std::make_shared<CommRecorder>());
  const auto parameters = model.module->parameters();  // fc1 weight, bias, fc2 ..., fc3 ...
  const auto held = [](const torch::Tensor& parameter) { return parameter.storage().nbytes(); };
  for (const auto& parameter : parameters) EXPECT_EQ(held(parameter), 0u) << "only the shards are kept between steps";
  const auto batch = batches("mlp", 1).front();
  sync.begin_forward(true);
  const torch::Tensor loss = workload->loss(model.forward(batch.input), batch.target);
  EXPECT_EQ(held(parameters[0]), 0u) << "fc1, freed after its forward (autograd's saved view of it too)";
  EXPECT_EQ(held(parameters[2]), 0u) << "fc2, freed after its forward";
  EXPECT_GE(held(parameters[4]), (10u * 1024 + 10) * 4) << "fc3, kept: its backward comes first";
  sync.begin_backward(false);
  loss.backward();
  sync.finish_backward();
  for (const auto& parameter : parameters) {
    EXPECT_EQ(held(parameter), 0u) << "freed once its gradients were reduced";
    EXPECT_EQ(parameter.numel() > 0, true) << "its shape stays: the storage alone is freed";
    EXPECT_FALSE(parameter.grad().defined()) << "whole gradients dropped: only the shard's are kept";
  }
  for (const auto& shard : sync.optimizer_parameters()) EXPECT_TRUE(shard.grad().defined());
  // Two units at once at most, the one computing and the next (prefetched): fc1 and fc2.
  EXPECT_LE(sync.peak_gathered_bytes(), (1049600 + 803840) * 4);
  sync.gather_whole_model();
  EXPECT_EQ(held(parameters[0]), (1024u * 784 + 1024) * 4);
}

// A model that uses a unit's weight outside the unit: declared wrongly for fsdp.
struct MisdeclaredImpl : torch::nn::Module {
  MisdeclaredImpl() {
    first = register_module("first", torch::nn::Linear(4, 4));
    second = register_module("second", torch::nn::Linear(4, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto y = segments.run(0, [this](const torch::Tensor& in) { return first(in); }, x);
    y = segments.run(1, [this](const torch::Tensor& in) { return second(in); }, y);
    return torch::matmul(y, first->weight);  // first's weight, after its unit freed it
  }
  torch::nn::Linear first{nullptr}, second{nullptr};
  SegmentRunner segments;
};
TORCH_MODULE(Misdeclared);

TEST(ShardedDataParallel, AParameterUsedAfterItsUnitFreedItFailsInsteadOfReadingFreedMemory) {
  for (const ParallelMode mode : {ParallelMode::Zero2, ParallelMode::Fsdp}) {
    Misdeclared net;
    Model model;
    model.module = net.ptr();
    model.forward = [net](const torch::Tensor& input) mutable { return net->forward(input); };
    declare_units(model, net, {net->first.ptr(), net->second.ptr()});
    const auto group = one_rank_group();
    ShardedOptions options;
    options.mode = mode;
    ShardedDataParallel sync(model, *group, options, std::make_shared<CommRecorder>());
    sync.begin_forward(true);
    if (mode == ParallelMode::Fsdp)
      EXPECT_THROW(model.forward(torch::randn({2, 4})), c10::Error) << "first's weight was freed after its forward";
    else
      EXPECT_NO_THROW(model.forward(torch::randn({2, 4}))) << "zero2 keeps every parameter whole";
  }
}

// A peer that never arrives: each all-gather stays pending until the test lets them all go
// (and from then on completes at once, so that a wait without a bound ends too).
class StalledGroup final : public CollectiveGroup {
 public:
  class Pending final : public c10d::Work {
   public:
    void let_go() { finish(); }
  };
  StalledGroup() : CollectiveGroup(/*rank=*/0, /*size=*/2) {}
  const std::string getBackendName() const override { return "stalled"; }
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor&, at::Tensor&, const c10d::AllgatherOptions&) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto work = c10::make_intrusive<Pending>();
    if (released_) work->let_go();
    pending_.push_back(work);
    return work;
  }
  void let_go() {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ = true;
    for (auto& work : pending_) work->let_go();
  }

 private:
  std::mutex mutex_;
  bool released_ = false;
  std::vector<c10::intrusive_ptr<Pending>> pending_;
};

// Gathering the whole model after training (for the digest and the checkpoint) copies it
// to the host next: on NCCL that copy would block on the stream with no bound, so the
// gather waits on the host, bounded by --comm-timeout, and a stalled peer is the named
// failure (stream_waits stands for NCCL here: Gloo's waits are always on the host).
TEST(ShardedDataParallel, GatheringTheWholeModelIsBoundedWhenAPeerStalls) {
  const auto workload = make_workload("mlp");
  Model model = workload->make_model();
  StalledGroup group;
  ShardedOptions options;
  options.mode = ParallelMode::Fsdp;
  options.world_size = 2;
  options.stream_waits = true;
  options.timeout = std::chrono::milliseconds(300);
  ShardedDataParallel sync(model, group, options, std::make_shared<CommRecorder>());
  auto gathered = std::async(std::launch::async, [&]() -> std::string {
    try {
      sync.gather_whole_model(/*keep=*/false);
      return "returned";
    } catch (const CommFailure& failure) {
      return failure.what();
    }
  });
  const bool ended = gathered.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  group.let_go();  // a wait without a bound ends now, so that the test does too
  EXPECT_TRUE(ended) << "the gather waited on a stalled peer with no bound";
  const std::string outcome = gathered.get();
  EXPECT_NE(outcome.find("the all-gather of unit 0 failed"), std::string::npos) << outcome;
  EXPECT_NE(outcome.find("--comm-timeout"), std::string::npos) << outcome;
}

// On NCCL a collective's time is its kernel's on NCCL's stream, read back once the step's
// collectives are done: the host's view (launch to the end of its wait) would charge it
// the GPU's unfinished compute.
TEST(ShardedDataParallel, OnNcclEachCollectiveIsTimedOnTheDevice) {
  const auto workload = make_workload("mlp");
  Model model = workload->make_model();
  test_support::CopyingGroup group;
  group.device_ms = 0.25f;
  ShardedOptions options;
  options.mode = ParallelMode::Zero2;
  options.device_timing = true;
  auto recorder = std::make_shared<CommRecorder>();
  ShardedDataParallel sync(model, group, options, recorder);
  torch::optim::Adam adam(sync.optimizer_parameters(), torch::optim::AdamOptions(1e-3));
  recorder->step_begin(0, /*measured=*/true);
  train(model, adam, &sync, *workload, batches("mlp", 1));
  const auto samples = recorder->samples();
  // zero2 on the mlp: a reduce-scatter and an all-gather a unit, three units, 0.25 ms each.
  EXPECT_DOUBLE_EQ(samples["comm_ms"][0].get<double>(), 6 * 0.25);
  EXPECT_LT(samples["hidden_ms"][0].get<double>(), 0) << "what the compute hid is not measured on NCCL";
}

struct NcclLikeRun {
  std::unique_ptr<Workload> workload = make_workload("mlp");
  Model model = workload->make_model();
  test_support::CopyingGroup group;
  std::shared_ptr<CommRecorder> recorder = std::make_shared<CommRecorder>();
  std::unique_ptr<ShardedDataParallel> sync;
  std::unique_ptr<torch::optim::Adam> adam;
  explicit NcclLikeRun(bool stall) {
    group.stall_from_reduce_scatter = stall;
    ShardedOptions options;
    options.mode = ParallelMode::Zero2;
    options.stream_waits = true;  // NCCL's waits
    options.timeout = std::chrono::milliseconds(300);
    sync = std::make_unique<ShardedDataParallel>(model, group, options, recorder);
    adam = std::make_unique<torch::optim::Adam>(sync->optimizer_parameters(), torch::optim::AdamOptions(1e-3));
    recorder->step_begin(0, /*measured=*/true);
  }
};

// As PyTorch's DDP and FSDP2 do on NCCL, no wait of a step blocks the host (it keeps its
// run-ahead into the optimizer and the next forward); the bound moves to the next step's
// start, which waits on the host for the step's last collective, and only then is the
// step recorded. No host wait saw its exposed part: unknown, not 0.
TEST(ShardedDataParallel, OnNcclAStepWaitsOnTheStreamAndTheNextStartChecksItOnTheHost) {
  NcclLikeRun run(/*stall=*/false);
  train(run.model, *run.adam, run.sync.get(), *run.workload, batches("mlp", 1));
  EXPECT_EQ(run.group.host_waits, 0) << "a host wait inside the step";
  EXPECT_EQ(run.group.stream_waits, 6) << "zero2 on the mlp: a reduce-scatter and an all-gather a unit";
  EXPECT_EQ(run.recorder->samples()["steps"], 0) << "not settled before the next step's start";
  run.sync->settle();
  EXPECT_EQ(run.group.host_waits, 2)
      << "the step's last all-gather and last reduce-scatter (each group's last: they run on groups of their own), on "
         "the host, bounded";
  const auto samples = run.recorder->samples();
  ASSERT_EQ(samples["steps"], 1);
  EXPECT_LT(samples["exposed_ms"][0].get<double>(), 0) << "the exposed part is unknown on NCCL";
  const auto merged = merge_rank_stats({{{"rank", 0}, {"step_ms", {10.0}}, {"samples", samples}}});
  EXPECT_TRUE(merged["exposed_comm_ms"].is_null());
  EXPECT_TRUE(merged["exposed_comm_share"].is_null());
}

// A peer that died in backward: the step itself goes on (its waits are the stream's), and
// the next step's start fails within --comm-timeout, naming what it waited for.
TEST(ShardedDataParallel, OnNcclAStalledReductionFailsTheNextStepsStartWithinTheBound) {
  NcclLikeRun run(/*stall=*/true);
  const auto data = batches("mlp", 2);
  train(run.model, *run.adam, run.sync.get(), *run.workload, {data[0]});
  try {
    train(run.model, *run.adam, run.sync.get(), *run.workload, {data[1]});
    ADD_FAILURE() << "the next step started on a stalled reduction";
  } catch (const CommFailure& failure) {
    const std::string message = failure.what();
    EXPECT_NE(message.find("the last step's last collective"), std::string::npos) << message;
    EXPECT_NE(message.find("--comm-timeout"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace gpubench
