// End to end: every file a `--model` reads is an input to the output rules, as --data's are
// (cli/output_rules.h): --out or --trace over a model's config.json, its weights, their
// index or a shard, or its TorchScript archive, replaced the model with the report (exit 0).
// Now exit 2 before anything runs, the file untouched. On the Hugging Face folders a ctest
// fixture makes (tests/workloads/hf_family_reference.py); the archive's case is in
// scripted_run_test.cpp, on its own fixture.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/file_text.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using test_support::run_command;

std::string fixture(const char* variable, const std::string& name) {
  const char* root = std::getenv(variable);
  return root == nullptr ? "" : std::string(root) + "/" + name;
}

using test_support::file_text;

// The tensor names of a safetensors file: its header (an 8-byte little-endian length, then
// JSON) less __metadata__.
std::vector<std::string> tensor_names(const std::string& path) {
  const std::string bytes = file_text(path);
  std::uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  const nlohmann::json header = nlohmann::json::parse(bytes.substr(8, length));
  std::vector<std::string> names;
  for (const auto& [name, entry] : header.items())
    if (name != "__metadata__") names.push_back(name);
  return names;
}

struct Refusal {
  std::string args;     // after the gpubench executable
  std::string message;  // what the refusal says
  std::string kept;     // the model file that must be left as it was
};

void expect_refused(const std::vector<Refusal>& cases) {
  for (const Refusal& refusal : cases) {
    const std::string before = file_text(refusal.kept);
    ASSERT_FALSE(before.empty()) << refusal.kept;
    const auto run = run_command(std::string(GPUBENCH_EXE) + " " + refusal.args);
    EXPECT_EQ(run.exit_code, 2) << refusal.args << "\n" << run.output;
    EXPECT_NE(run.output.find(refusal.message), std::string::npos) << refusal.args << "\n" << run.output;
    EXPECT_NE(run.output.find("it would overwrite an input"), std::string::npos) << run.output;
    EXPECT_EQ(file_text(refusal.kept), before) << refusal.kept << " was changed by " << refusal.args;
  }
}

TEST(ModelInputs, NoOutputIsAFileOfAHuggingFaceModel) {
  const std::string reference = fixture("GPUBENCH_FAMILY_REFERENCE_DIR", "llama_gqa_llama3_tied");
  if (reference.empty() || !fs::exists(reference + "/model.safetensors"))
    GTEST_SKIP() << "the family references are not there: ctest runs hf_family_reference.py first";
  const std::string dir = test_support::make_temp_dir("model-inputs");
  const std::string single = dir + "/single", sharded = dir + "/sharded", shard = "model-00001-of-00001.safetensors";
  fs::create_directory(single);
  fs::create_directory(sharded);
  for (const char* file : {"config.json", "model.safetensors"}) fs::copy_file(reference + "/" + file, single + "/" + file);
  // The same weights as a sharded checkpoint: one shard and the index naming it.
  fs::copy_file(reference + "/config.json", sharded + "/config.json");
  fs::copy_file(reference + "/model.safetensors", sharded + "/" + shard);
  nlohmann::json index = {{"metadata", nlohmann::json::object()}, {"weight_map", nlohmann::json::object()}};
  for (const std::string& name : tensor_names(reference + "/model.safetensors")) index["weight_map"][name] = shard;
  std::ofstream(sharded + "/model.safetensors.index.json") << index.dump();
  fs::create_directory_symlink(single, dir + "/link");

  const std::string run = " --matrix m/cpu/fp32 --steps 1 --warmup 0 --threads 1 --checkpoint-check off --format json";
  expect_refused({
      {"--model m=" + single + run + " --out " + single + "/model.safetensors",
       "--out '" + single + "/model.safetensors' is --model m's weights", single + "/model.safetensors"},
      {"--model m=" + single + run + " --out " + single + "/config.json", "is --model m's config.json",
       single + "/config.json"},
      {"--model m=" + single + "/config.json" + run + " --trace " + single + "/model.safetensors --out " + dir + "/r.json",
       "--trace '" + single + "/model.safetensors' is --model m's weights", single + "/model.safetensors"},
      {"--model m=" + dir + "/link" + run + " --out " + single + "/model.safetensors", "is --model m's weights",
       single + "/model.safetensors"},
      {"--model m=" + sharded + run + " --out " + sharded + "/model.safetensors.index.json",
       "is --model m's weights index", sharded + "/model.safetensors.index.json"},
      {"--model m=" + sharded + run + " --out " + sharded + "/" + shard, "is --model m's weights shard",
       sharded + "/" + shard},
      {"tune m --model m=" + single + " --steps 1 --warmup 0 --out " + single + "/config.json",
       "is --model m's config.json", single + "/config.json"},
  });
  // Beside the model's files a report is written as anywhere else.
  const auto beside = run_command(std::string(GPUBENCH_EXE) + " --model m=" + sharded + run + " --out " + sharded +
                                  "/report.json > /dev/null");
  EXPECT_EQ(beside.exit_code, 0) << beside.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpubench
