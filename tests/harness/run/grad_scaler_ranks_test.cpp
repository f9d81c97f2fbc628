// The GradScaler of a sharded run (zero1, zero2, fsdp): each rank unscales only its
// gradient shard, so its inf flag is maxed over the ranks (DdpSession::agree_on_found_inf,
// an all-reduce) before any rank steps or skips. Here the agreement is played by a
// function standing in for the other ranks.
#include "harness/run/grad_scaler.h"

#include <gtest/gtest.h>

#include <limits>

#include "harness/run/amp_scaling_optimizer.h"

namespace gpubench {
namespace {

// One shard at zero under SGD(lr=1): after a step it equals minus its unscaled gradient.
struct Shard {
  torch::Tensor w = torch::zeros({4}, torch::TensorOptions().requires_grad(true));
  torch::optim::SGD sgd{{w}, torch::optim::SGDOptions(1.0)};
};

// Another rank's shard held an inf: the max over the ranks is 1 whatever this rank found.
void another_rank_overflowed(torch::Tensor& found_inf, bool) { found_inf.fill_(1.0); }

TEST(GradScalerRanks, AnInfOnAnotherRanksShardSkipsThisRanksCleanStep) {
  GradScaler scaler({}, AmpKernels::TensorOps);
  scaler.scale(torch::ones({}));
  scaler.agree_across_ranks(another_rank_overflowed);
  Shard shard;
  shard.w.mutable_grad() = torch::ones({4}) * scaler.current_scale();  // finite here
  EXPECT_FALSE(scaler.step(shard.sgd)) << "every rank skips together";
  scaler.update();
  EXPECT_TRUE(torch::equal(shard.w.detach(), torch::zeros({4})));
  EXPECT_EQ(scaler.current_scale(), 32768.0) << "and backs its scale off, as the others do";
  EXPECT_EQ(scaler.skipped_steps(), 1);
}

TEST(GradScalerRanks, WithoutAnInfAnywhereTheAgreedStepIsTaken) {
  GradScaler scaler({}, AmpKernels::TensorOps);
  scaler.scale(torch::ones({}));
  int asked = 0;
  bool read_on_host = false;
  scaler.agree_across_ranks([&](torch::Tensor&, bool host_reads) {  // every rank finite: max is 0
    ++asked;
    read_on_host = host_reads;
  });
  Shard shard;
  shard.w.mutable_grad() = torch::full({4}, 2.0) * scaler.current_scale();
  EXPECT_TRUE(scaler.step(shard.sgd));
  scaler.update();
  EXPECT_EQ(asked, 1) << "asked once a step, before the step is decided";
  EXPECT_TRUE(read_on_host) << "the step is decided on the host: the agreement may wait there, bounded";
  EXPECT_TRUE(torch::allclose(shard.w.detach(), torch::full({4}, -2.0)));
}

// An optimizer that unscales in its kernel (fused Adam), recording the flag it is handed.
class RecordingScaledSgd final : public torch::optim::SGD, public AmpScalingOptimizer {
 public:
  using torch::optim::SGD::SGD;
  bool supports_amp_scaling() const override { return true; }
  void step_scaled(const torch::Tensor&, const torch::Tensor& found_inf) override { seen.push_back(found_inf.item<float>()); }
  std::vector<float> seen;
};

TEST(GradScalerRanks, AFusedKernelIsHandedTheAgreedFlag) {
  GradScaler scaler({}, AmpKernels::TensorOps);
  scaler.scale(torch::ones({}));
  bool read_on_host = true;
  scaler.agree_across_ranks([&](torch::Tensor& found_inf, bool host_reads) {
    another_rank_overflowed(found_inf, host_reads);
    read_on_host = host_reads;
  });
  auto w = torch::zeros({4}, torch::TensorOptions().requires_grad(true));
  RecordingScaledSgd fused({w}, torch::optim::SGDOptions(1.0));
  w.mutable_grad() = torch::ones({4});
  scaler.step(fused);
  scaler.update();
  ASSERT_EQ(fused.seen.size(), 1u);
  EXPECT_EQ(fused.seen[0], 1.0f) << "the kernel skips on every rank";
  EXPECT_FALSE(read_on_host) << "only the kernel reads the flag: a host wait would add a sync per step";
}

}  // namespace
}  // namespace gpubench
