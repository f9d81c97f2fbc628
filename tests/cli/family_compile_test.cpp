// compile of a user's dense decoder (issue 58): its Python twin is transformers' own model of
// the same config.json (scripts/compile_twins.py, hf_decoder), so the compiled row trains as
// the eager row of gpubench's own model from the same weights; a mixture of experts has no
// twin, and compile is refused for it by the rule table.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/family_references.h"
#include "support/report_json.h"
#include "support/run_command.h"
#include "support/schema_validation.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

TEST(FamilyCompile, ADenseDecoderCompilesThroughTransformersOwnModelAndTrainsAsEager) {
  // A tied head (one parameter under one name), and Qwen3's per-head q/k norms.
  const std::string llama = test_support::family_case_folder("llama_gqa_llama3_tied"), qwen3 = test_support::family_case_folder("qwen3_qk_norm");
  if (llama.empty() || qwen3.empty()) GTEST_SKIP() << "the family references are not there: ctest runs hf_family_reference.py first";
  const std::string dir = test_support::make_temp_dir("family-compile");
  const auto run = test_support::run_command(
      "GPUBENCH_COMPILE_CACHE=" + dir + "/cache " + std::string(GPUBENCH_EXE) + " --model l=" + llama + " --model q=" +
      qwen3 + " --matrix l/cpu/fp32,l/cpu/fp32/compile,q/cpu/fp32,q/cpu/fp32/compile --steps 4 --warmup 0 --threads 1 "
      "--seed 7 --batch-size 4 --checkpoint-check off --out " + dir + "/r.json > /dev/null");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto report = test_support::read_json(dir + "/r.json");
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  for (const std::string model : {"l", "q"}) {
    const auto* eager = test_support::find_row(report, model + "/cpu/fp32");
    const auto* compiled = test_support::find_row(report, model + "/cpu/fp32/compile");
    ASSERT_TRUE(eager && compiled) << model;
    ASSERT_EQ((*compiled)["status"], "ok") << (*compiled)["reason"];
    EXPECT_EQ((*compiled)["compile"]["key_fields"]["twin"], "hf_decoder");
    EXPECT_LE((*compiled)["compile"]["check"]["worst_relative_error"].get<double>(), 1e-4);
    const auto got = (*compiled)["loss"]["curve"].get<std::vector<double>>();
    const auto want = (*eager)["loss"]["curve"].get<std::vector<double>>();
    ASSERT_EQ(got.size(), want.size()) << model;
    for (std::size_t step = 0; step < got.size(); ++step)
      EXPECT_NEAR(got[step] / want[step], 1.0, 1e-5) << model << ", step " << step;
  }
  fs::remove_all(dir);
}

TEST(FamilyCompile, AMixtureOfExpertsHasNoTwinAndIsRefusedByTheRule) {
  const std::string mixtral = test_support::family_case_folder("mixtral_moe");
  if (mixtral.empty()) GTEST_SKIP() << "the family references are not there: ctest runs hf_family_reference.py first";
  const auto run = test_support::run_command(std::string(GPUBENCH_EXE) + " --model x=" + mixtral +
                                             " --matrix x/cpu/fp32/compile --list 2>&1");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("compile does not apply to x"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("not the mixtures of experts"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace gpubench
