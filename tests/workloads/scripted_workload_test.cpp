// A user's model as code: TorchScript archives that tests/workloads/scripted_reference.py
// exports with the venv's torch and torchvision (a ctest fixture) train in gpubench's own
// loop (the Trainer) as in a plain Python loop: five Adam steps on one fixed batch, fp32,
// CPU, one thread, the same losses to 1e-5 relative; bad archives are UsageErrors naming
// the file and what is wrong.
#include <cstdlib>
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "core/config/errors.h"
#include "harness/profile/phase_timer.h"
#include "harness/run/checkpoint_check.h"
#include "harness/run/trainer.h"
#include "core/io/mapped_file.h"
#include "workloads/formats/safetensors_file.h"
#include "workloads/formats/zip_directory.h"
#include "workloads/model_registry.h"
#include "workloads/scripted_workload.h"

namespace gpubench {
namespace {

std::string reference(const std::string& file) {
  const char* root = std::getenv("GPUBENCH_SCRIPTED_REFERENCE_DIR");
  return root == nullptr ? "" : std::string(root) + "/" + file;
}

#define REQUIRE_REFERENCES()                                         \
  if (reference("resnet18.pt").empty() || !std::filesystem::exists(reference("resnet18.pt"))) \
  GTEST_SKIP() << "the archives are not there: ctest runs scripted_reference.py first"

// The same batch every step, as the Python loop.
class FixedBatch final : public BatchSource {
 public:
  explicit FixedBatch(Batch batch) : batch_(std::move(batch)) {}
  Batch next() override { return batch_; }
  Batch to_device(Batch host) override { return host; }

 private:
  Batch batch_;
};

ScriptedTask classification(std::vector<std::int64_t> input, std::int64_t classes) {
  ScriptedTask task;
  task.input = std::move(input);
  task.classes = classes;
  return task;
}

// Five steps through the Trainer (zero_grad, forward, loss, backward, Adam) on the fixed batch.
std::vector<double> gpubench_losses(const ScriptedWorkload& workload, const Batch& batch) {
  Model model = workload.make_model();
  torch::optim::Adam optimizer(model.module->parameters(), torch::optim::AdamOptions(1e-3));
  TrainerSpec spec;
  spec.stopping.exact = true;
  spec.stopping.max_steps = 5;
  ProbeSet probes;
  probes.add(std::make_shared<PhaseTimer>());
  FixedBatch source(batch);
  PassThroughScaler scaler;
  return Trainer(spec, probes).run(model, optimizer, workload, source, scaler).losses;
}

void expect_python_curve(const std::string& name, const ScriptedWorkload& workload) {
  const SafetensorsFile python(reference(name + ".safetensors"));
  at::set_num_threads(1);
  const auto losses = gpubench_losses(workload, Batch(python.stored_tensor("x"), python.stored_tensor("y")));
  const auto expected = python.stored_tensor("losses");
  ASSERT_EQ(static_cast<std::int64_t>(losses.size()), expected.numel());
  for (std::size_t i = 0; i < losses.size(); ++i)
    EXPECT_NEAR(losses[i], expected[i].item<double>(), 1e-5 * std::abs(expected[i].item<double>())) << name << " step " << i;
  EXPECT_EQ(workload.declared_parameters().value_or(0), python.stored_tensor("parameters")[0].item<std::int64_t>());
  // FLOPs counted by LibTorch's operator observer, as torch.utils.flop_counter counts them.
  EXPECT_EQ(workload.forward_macs_per_sample() * 2, python.stored_tensor("forward_flops")[0].item<std::int64_t>()) << name;
}

TEST(ScriptedWorkload, ScriptedResnet18TrainsAsThePlainPythonLoop) {
  REQUIRE_REFERENCES();
  const ScriptedWorkload workload("r18", reference("resnet18.pt"), classification({3, 64, 64}, 1000));
  EXPECT_EQ(workload.declared_parameters().value_or(0), 11689512) << "torchvision's resnet18";
  expect_python_curve("resnet18", workload);
  EXPECT_TRUE(workload.traits().image_batches && !workload.traits().cloneable && !workload.traits().segments);
}

TEST(ScriptedWorkload, AScriptedLanguageModelTrainsAsThePlainPythonLoop) {
  REQUIRE_REFERENCES();
  ScriptedTask task;
  task.kind = ScriptedTask::Kind::LanguageModel;
  task.vocab = 100;
  task.seq_len = 32;
  const ScriptedWorkload workload("lm", reference("lm.pt"), task);
  EXPECT_EQ(workload.tokens_per_sample(), 32);
  expect_python_curve("lm", workload);
}

// The checkpoint round trip compares eval-mode outputs: eval() reaches a scripted module's
// BatchNorm (its outputs differ from train mode's); a traced one is reported frozen.
TEST(ScriptedWorkload, ScriptedModulesFollowTrainEvalAndTracedOnesAreReported) {
  REQUIRE_REFERENCES();
  const ScriptedWorkload scripted("bn", reference("scripted_bn.pt"), classification({3, 8, 8}, 10));
  EXPECT_EQ(scripted.describe()["train_eval"].get<std::string>().rfind("follows", 0), 0u);
  Model model = scripted.make_model();
  const auto x = torch::randn({4, 3, 8, 8});
  model.module->eval();
  const auto eval_out = model.forward(x);
  model.module->train();
  EXPECT_FALSE(torch::allclose(model.forward(x), eval_out)) << "train mode uses the batch's statistics and dropout";
  torch::optim::Adam optimizer(model.module->parameters(), torch::optim::AdamOptions(1e-3));
  const std::string dir = std::filesystem::temp_directory_path() / ("gpubench-scripted-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const CheckpointCheck check = check_checkpoint_round_trip(scripted, model, optimizer, x, dir + "/ckpt.pt");
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(check.parameters_equal && check.outputs_equal) << check.mismatch;
  const ScriptedWorkload traced("traced", reference("traced_bn.pt"), classification({3, 8, 8}, 10));
  EXPECT_EQ(traced.describe()["train_eval"].get<std::string>().rfind("frozen: a traced module", 0), 0u)
      << traced.describe()["train_eval"];
  // Its dropout runs in eval mode too: its outputs differ call to call, so they are not
  // compared (the round trip failed every such row once, its measurement with it); its
  // parameters and buffers are, and pass (issue 61, item 18).
  Model frozen = traced.make_model();
  torch::optim::Adam frozen_optimizer(frozen.module->parameters(), torch::optim::AdamOptions(1e-3));
  std::filesystem::create_directories(dir);
  const CheckpointCheck dropout = check_checkpoint_round_trip(traced, frozen, frozen_optimizer, x, dir + "/ckpt.pt");
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(dropout.parameters_equal) << dropout.mismatch;
  EXPECT_FALSE(dropout.outputs_compared);
  EXPECT_TRUE(dropout.passed()) << dropout.mismatch;
  EXPECT_TRUE(dropout.to_json()["outputs_equal"].is_null());
  EXPECT_NE(dropout.outputs_note.find("not compared"), std::string::npos);
  EXPECT_TRUE(check.outputs_compared) << "the scripted one's outputs are compared";
}

TEST(ScriptedWorkload, AForwardWithAnOptionalSecondArgumentTakesTheBatchAlone) {
  REQUIRE_REFERENCES();
  const ScriptedWorkload workload("masked", reference("optional_mask.pt"), classification({3, 8, 8}, 10));
  EXPECT_EQ(workload.declared_parameters().value_or(0), 3 * 10 + 10);
}

// The LM's head is its embedding (one tensor, two owners in TorchScript's listing): one
// parameter to the optimizer, as in Python, or the curve above would not match.
TEST(ScriptedWorkload, ATiedWeightIsOneParameter) {
  REQUIRE_REFERENCES();
  ScriptedTask task;
  task.kind = ScriptedTask::Kind::LanguageModel;
  task.vocab = 100;
  task.seq_len = 32;
  const Model model = ScriptedWorkload("lm", reference("lm.pt"), task).make_model();
  std::set<const void*> distinct;
  for (const auto& p : model.module->parameters()) distinct.insert(p.data_ptr());
  EXPECT_EQ(distinct.size(), model.module->parameters().size());
}

TEST(ScriptedWorkload, BadArchivesAreUsageErrorsNamingTheFileAndTheProblem) {
  REQUIRE_REFERENCES();
  for (const auto& [file, fragment] : std::vector<std::pair<std::string, std::string>>{
           {"truncated.pt", "is not a TorchScript module"},
           {"pickle.pt", "is not a TorchScript module"},
           {"two_inputs.pt", "forward takes 2 inputs without a default"},
           {"wrong_shape.pt", "its output for a batch of 2 is [2, 7]: expected [2, 10]"},
           // The interpreter's JITException, not a c10::Error: once a fatal exit 1. Its cause
           // is the last line of its traceback (a cut at 300 characters lost it).
           {"asserts.pt", "its forward fails on the task's input (2x3x8x8): RuntimeError: AssertionError: expected 4 "
                          "channels (raised at File \""},
           // Every line of a message of several lines, the first included (issue 61, item 24).
           {"raises_lines.pt", "its forward fails on the task's input (2x3x8x8): builtins.RuntimeError: boom\nResult: 0 "
                               "regressions, 3 improvements (raised at File \""},
           // Nothing a training step can train: refused up front, not a failed row per config.
           {"int_logits.pt", "its output is Long: expected floating-point logits"},
           {"no_parameters.pt", "has no parameters: expected a module with weights to train"},
           {"frozen.pt", "all 2 of its parameters have requires_grad false (frozen)"},
           {"detached.pt", "its output does not require grad"},
           // A record that declares 512 MiB in a 0.5 MB file: refused before LibTorch allocates it.
           {"inflating.pt", "its zip entries declare "}}) {
    try {
      ScriptedWorkload("bad", reference(file), classification({3, 8, 8}, 10));
      ADD_FAILURE() << file << " was accepted";
    } catch (const UsageError& error) {
      const std::string what = error.what();
      EXPECT_NE(what.find(reference(file)), std::string::npos) << what;
      EXPECT_NE(what.find(fragment), std::string::npos) << what;
      EXPECT_EQ(what.find("frame #"), std::string::npos) << "no stack trace: " << what;
    }
  }
}

// The probe's input is estimated before it is allocated: 240 GB of fp32 was a C++ stack
// trace (the catch handler built the batch again to print its shape), exit 1.
TEST(ScriptedWorkload, AnInputTooLargeForThisMachineIsRefusedNamingTheFlag) {
  REQUIRE_REFERENCES();
  RunSettings settings;
  settings.model_paths["s"] = reference("pool.pt");
  settings.model_inputs["s"] = {3, 100000, 100000};
  settings.model_classes["s"] = 10;
  try {
    register_models(settings);
    ADD_FAILURE() << "a 240 GB probe input was accepted";
  } catch (const UsageError& error) {
    const std::string what = error.what();
    EXPECT_EQ(what.rfind("--input s=3x100000x100000: a batch of 2 samples (2x3x100000x100000) is 223.5 GiB as fp32", 0), 0u)
        << what;
  }
  settings.model_inputs["s"] = {1 << 20, 1 << 20, 1 << 20, 1 << 20};  // past 64 bits
  EXPECT_THROW(register_models(settings), UsageError);
}

// torch.jit.save's archives (a ZIP64 end record always, tensor records stored, code
// deflated) read as zips declaring about what they hold.
TEST(ScriptedWorkload, TheArchivesTorchWritesReadAsZipsWithinTheirSize) {
  REQUIRE_REFERENCES();
  const MappedFile file(reference("resnet18.pt"), "archive");
  const auto entries = read_zip_directory(file.data(), file.size(), "resnet18.pt");
  std::uint64_t total = 0;
  for (const ZipEntry& entry : entries) total += entry.uncompressed;
  EXPECT_GT(entries.size(), 100u);
  EXPECT_LE(total, file.size() + file.size() / 100);
  EXPECT_NO_THROW(check_declared_sizes(entries, file.size(), "resnet18.pt"));
}

}  // namespace
}  // namespace gpubench
