// The multi-tensor Adams against LibTorch's per-parameter Adam: same updates, same saved
// state; and the CNN in channels_last through a checkpoint round trip.
#include "harness/run/multi_tensor_adam.h"

#include <gtest/gtest.h>

#include <sstream>

#include "harness/run/channels_last.h"
#include "harness/run/checkpoint_check.h"
#include "workloads/workload.h"

namespace gpubench {
namespace {

// Five steps of the same gradients (a fixed quadratic loss) from the same start.
std::vector<torch::Tensor> trained(torch::optim::Adam& optimizer, std::vector<torch::Tensor> parameters) {
  torch::manual_seed(1);
  const auto target_a = torch::randn({64, 32}), target_b = torch::randn({32});
  for (int step = 0; step < 5; ++step) {
    optimizer.zero_grad();
    ((parameters[0] - target_a).pow(2).sum() + (parameters[1] - target_b).pow(4).sum()).backward();
    optimizer.step();
  }
  return parameters;
}

std::vector<torch::Tensor> fresh_parameters() {
  torch::manual_seed(0);
  return {torch::randn({64, 32}).requires_grad_(), torch::randn({32}).requires_grad_()};
}

TEST(MultiTensorAdam, ForeachAndFusedMatchTheLoopStepForStep) {
  auto loop_params = fresh_parameters();
  torch::optim::Adam loop(loop_params, torch::optim::AdamOptions(1e-2));
  const auto expected = trained(loop, loop_params);
  for (const auto kernel : {MultiTensorAdam::Kernel::Foreach, MultiTensorAdam::Kernel::Fused}) {
    auto params = fresh_parameters();
    MultiTensorAdam adam(params, torch::optim::AdamOptions(1e-2), kernel);
    const auto got = trained(adam, params);
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(torch::allclose(got[i], expected[i], 1e-5, 1e-6))
          << (kernel == MultiTensorAdam::Kernel::Fused ? "fused" : "foreach") << " parameter " << i << " max diff "
          << (got[i] - expected[i]).abs().max().item<double>();
    EXPECT_FALSE(torch::equal(got[0], fresh_parameters()[0])) << "it trained";
  }
}

TEST(MultiTensorAdam, SavedStateLoadsIntoLibTorchsAdamAndBack) {
  auto params = fresh_parameters();
  MultiTensorAdam fused(params, torch::optim::AdamOptions(1e-2), MultiTensorAdam::Kernel::Fused);
  trained(fused, params);
  std::stringstream stream;
  torch::serialize::OutputArchive out;
  fused.save(out);
  out.save_to(stream);
  // A plain Adam and a foreach one both read it: step counts and moments included.
  auto other = fresh_parameters();
  MultiTensorAdam foreach_adam(other, torch::optim::AdamOptions(1e-2), MultiTensorAdam::Kernel::Foreach);
  torch::serialize::InputArchive in;
  in.load_from(stream);
  foreach_adam.load(in);
  const auto& state = static_cast<torch::optim::AdamParamState&>(*foreach_adam.state().at(other[0].unsafeGetTensorImpl()));
  EXPECT_EQ(state.step(), 5);
  const auto& saved = static_cast<torch::optim::AdamParamState&>(*fused.state().at(params[0].unsafeGetTensorImpl()));
  EXPECT_TRUE(torch::equal(state.exp_avg(), saved.exp_avg()));
}

TEST(ChannelsLast, TheCnnTrainsAndRoundTripsInChannelsLast) {
  const auto workload = make_workload("cnn");
  Model model = workload->make_model();
  to_channels_last(*model.module);
  int four_d = 0;
  for (const auto& parameter : model.module->parameters())
    if (parameter.dim() == 4) {
      ++four_d;
      EXPECT_TRUE(parameter.is_contiguous(torch::MemoryFormat::ChannelsLast));
    }
  EXPECT_EQ(four_d, 9) << "stem, 2 convs x 3 blocks, 2 projections";
  torch::optim::Adam optimizer(model.module->parameters(), torch::optim::AdamOptions(1e-3));
  const auto input = torch::randn({4, 3, 32, 32}).contiguous(torch::MemoryFormat::ChannelsLast);
  torch::nn::functional::cross_entropy(model.forward(input), torch::tensor({1, 2, 3, 4})).backward();
  optimizer.step();
  EXPECT_TRUE(model.module->parameters()[0].is_contiguous(torch::MemoryFormat::ChannelsLast)) << "still after a step";
  const auto check = check_checkpoint_round_trip(*workload, model, optimizer, input, "/tmp/gpubench-ckpt-cl-test.pt",
                                                 /*channels_last=*/true);
  EXPECT_TRUE(check.parameters_equal) << check.mismatch;
  EXPECT_TRUE(check.outputs_equal) << check.mismatch;
}

}  // namespace
}  // namespace gpubench
