// The checkpoint round trip restores the model the config trained: with its techniques
// built in (an fp8 gpt2's outputs are an fp8 model's; a plain model restored from its
// weights gives other outputs and failed every fp8 row).
#include "harness/run/checkpoint_check.h"

#include <gtest/gtest.h>

#include "core/config/run_settings.h"

#include "harness/run/config_runner.h"

#include <cstdlib>

#include "workloads/decoder_lm.h"
#include "workloads/gpt2.h"

namespace gpubench {
namespace {

// GPT-2's family code at a small shape: the full 124M model's CPU _scaled_mm goes to oneDNN's
// reference matmul on hosts with AMX/AVX512-FP16 (850 s of ctest's 900 s there, issue 40),
// and what is proven, the round trip rebuilding the model with its techniques, does not
// depend on the size.
DecoderLmWorkload small_gpt2() {
  Gpt2Shape shape;
  shape.vocab = 128;
  shape.layers = 2;
  shape.heads = 2;
  shape.embd = 64;
  shape.context = 64;
  DecoderLmSpec spec;
  spec.name = "gpt2-small-shape";
  spec.make_model = [shape](const ModelTechniques& techniques) { return make_gpt2_model(shape, techniques); };
  spec.seq_len = 64;
  spec.vocab = 128;
  return DecoderLmWorkload(spec);
}

TEST(CheckpointCheck, RestoresTheModelWithTheTechniquesItWasTrainedWith) {
  torch::manual_seed(0);
  const DecoderLmWorkload workload = small_gpt2();
  const ModelTechniques fp8{/*checkpoint=*/false, /*fp8_linears=*/true};
  Model trained = workload.make_model_with(fp8);
  torch::optim::Adam optimizer(trained.module->parameters(), torch::optim::AdamOptions(1e-3));
  const torch::Tensor probe = torch::randint(128, {1, 64});
  const std::string path = ::testing::TempDir() + "gpubench-fp8-checkpoint.pt";
  const CheckpointCheck check = check_checkpoint_round_trip(workload, trained, optimizer, probe, path, false, fp8);
  EXPECT_TRUE(check.parameters_equal) << check.mismatch;
  EXPECT_TRUE(check.outputs_equal) << check.mismatch;
  EXPECT_TRUE(check.mismatch.empty()) << check.mismatch;
  // The same weights in the plain model give other outputs: what the check must not compare.
  const CheckpointCheck plain = check_checkpoint_round_trip(workload, trained, optimizer, probe, path);
  EXPECT_FALSE(plain.outputs_equal);
}

// A round trip that cannot run (here: its folder's parent is gone, as a full or removed
// TMPDIR leaves it) fails the row with its reason and keeps what the steps measured (issue 61,
// item 7).
TEST(CheckpointCheck, ARoundTripThatCannotRunKeepsTheMeasurement) {
  RunSettings settings;
  settings.preset = Preset::Quick;
  settings.steps = 3;
  settings.warmup = 0;
  settings.cupti = false;
  settings.scratch_dir = "/nonexistent-gpubench-scratch/sub";
  const nlohmann::json row = run_config_in_process(Config::parse("mlp/cpu/fp32"), settings);
  EXPECT_EQ(row["status"], "failed");
  EXPECT_NE(row["reason"].get<std::string>().find("checkpoint round trip failed: could not run: "), std::string::npos)
      << row["reason"];
  EXPECT_FALSE(row["checkpoint"]["done"].get<bool>()) << row["checkpoint"].dump();
  EXPECT_EQ(row["steps"]["measured"], 3);
  EXPECT_GT(row["throughput"]["samples_per_s"]["median"].get<double>(), 0);
}

}  // namespace
}  // namespace gpubench
