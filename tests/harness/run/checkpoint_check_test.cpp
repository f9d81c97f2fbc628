// The checkpoint round trip restores the model the config trained: with its techniques
// built in (an fp8 gpt2's outputs are an fp8 model's; a plain model restored from its
// weights gives other outputs and failed every fp8 row).
#include "run/checkpoint_check.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "workloads/gpt2.h"

namespace gpubench {
namespace {

TEST(CheckpointCheck, RestoresTheModelWithTheTechniquesItWasTrainedWith) {
  torch::manual_seed(0);
  const Gpt2Workload workload;
  const ModelTechniques fp8{/*checkpoint=*/false, /*fp8_linears=*/true};
  Model trained = workload.make_model_with(fp8);
  torch::optim::Adam optimizer(trained.module->parameters(), torch::optim::AdamOptions(1e-3));
  const torch::Tensor probe = torch::randint(Gpt2Workload::kTokenizerVocab, {1, 64});
  const std::string path = ::testing::TempDir() + "gpubench-fp8-checkpoint.pt";
  const CheckpointCheck check = check_checkpoint_round_trip(workload, trained, optimizer, probe, path, false, fp8);
  EXPECT_TRUE(check.parameters_equal) << check.mismatch;
  EXPECT_TRUE(check.outputs_equal) << check.mismatch;
  EXPECT_TRUE(check.mismatch.empty()) << check.mismatch;
  // The same weights in the plain model give other outputs: what the check must not compare.
  const CheckpointCheck plain = check_checkpoint_round_trip(workload, trained, optimizer, probe, path);
  EXPECT_FALSE(plain.outputs_equal);
}

}  // namespace
}  // namespace gpubench
