// The compile technique through the CLI (issue 58): a compile row trains as its eager row
// and says how its package was made; the second run takes it from the cache; a failed
// export is a failed row with the exporter's own reason while the matrix goes on; what the
// rule table refuses is exit 2 naming the rule. tests/harness/run/compiled_step_test.cpp
// compares the parameters too, for mlp and GPT-2, fp32 and bf16.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "support/report_json.h"
#include "support/run_command.h"
#include "support/schema_validation.h"

namespace gpubench {
namespace {

using test_support::find_row;
using test_support::read_json;
using test_support::run_command;

// The pair test's shape (tests/cli/technique_pairs_run_test.cpp): its package is this one.
const std::string kRunFlags = " --steps 4 --warmup 0 --threads 1 --seed 7 --batch-size 4 --format json";

nlohmann::json run_matrix(const std::string& env, const std::string& ids, const std::string& out) {
  const auto run = run_command(env + std::string(GPUBENCH_EXE) + " --matrix " + ids + kRunFlags + " --out " + out + " > /dev/null");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  return read_json(out);
}

TEST(CompileRun, ACompileRowTrainsAsItsEagerRowAndTheSecondRunHitsTheCache) {
  const std::string dir = test_support::make_temp_dir("compile-run");
  const auto first = run_matrix("", "mlp/cpu/fp32,mlp/cpu/fp32/compile", dir + "/first.json");
  EXPECT_EQ(test_support::schema_violations(first, GPUBENCH_REPORT_SCHEMA), "");
  const auto* eager = find_row(first, "mlp/cpu/fp32");
  const auto* compiled = find_row(first, "mlp/cpu/fp32/compile");
  ASSERT_TRUE(eager && compiled);
  ASSERT_EQ((*compiled)["status"], "ok") << (*compiled)["reason"];
  const auto got = (*compiled)["loss"]["curve"].get<std::vector<double>>();
  const auto want = (*eager)["loss"]["curve"].get<std::vector<double>>();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t step = 0; step < got.size(); ++step) EXPECT_NEAR(got[step] / want[step], 1.0, 1e-5) << "step " << step;
  const auto& made = (*compiled)["compile"];
  EXPECT_EQ(made["key_fields"]["twin"], "mlp");
  EXPECT_EQ(made["key_fields"]["data"]["shape"], nlohmann::json({4, 1, 28, 28}));
  EXPECT_EQ(made["attention"], "math");
  EXPECT_LE(made["check"]["worst_relative_error"].get<double>(), 1e-4);
  bool compared = false;
  for (const auto& comparison : first["comparisons"])
    compared = compared || (comparison["kind"] == "compile_vs_eager" && comparison["baseline"] == "mlp/cpu/fp32");
  EXPECT_TRUE(compared) << first["comparisons"];

  const auto second = run_matrix("", "mlp/cpu/fp32/compile", dir + "/second.json");
  const auto* again = find_row(second, "mlp/cpu/fp32/compile");
  ASSERT_NE(again, nullptr);
  EXPECT_TRUE((*again)["compile"]["cache_hit"].get<bool>());
  EXPECT_EQ((*again)["compile"]["cache_key"], made["cache_key"]);
  EXPECT_EQ((*again)["loss"]["curve"], (*compiled)["loss"]["curve"]) << "the same package, seed and data";
}

// An exporter that fails as torch would: its reason is the row's, the next config runs.
TEST(CompileRun, AFailedExportIsAFailedRowWithTheExportersReason) {
  const std::string dir = test_support::make_temp_dir("compile-fail");
  for (const char* file : {"compile_twins.py", "reference_models.py"}) std::ofstream(dir + "/" + file) << "\n";
  std::ofstream(dir + "/export_training_step.py")
      << "import sys\nout = sys.argv[sys.argv.index('--out') + 1]\n"
         "open(out + '/error.txt', 'w').write('torch.export.export: Unsupported: a test says no')\n"
         "open(out + '/log.txt', 'w').write('what torch printed')\nsys.exit(3)\n";
  const std::string env = "GPUBENCH_SCRIPTS_DIR=" + dir + " GPUBENCH_COMPILE_CACHE=" + dir + "/cache ";
  const auto report = run_matrix(env, "mlp/cpu/fp32/compile,mlp/cpu/fp32", dir + "/report.json");
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  const auto* failed = find_row(report, "mlp/cpu/fp32/compile");
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ((*failed)["status"], "failed");
  const std::string reason = (*failed)["reason"];
  EXPECT_NE(reason.find("compile: torch.export.export: Unsupported: a test says no"), std::string::npos) << reason;
  EXPECT_NE(reason.find(".failed.log"), std::string::npos) << reason;
  EXPECT_EQ((*find_row(report, "mlp/cpu/fp32"))["status"], "ok");
}

TEST(CompileRun, WhatTheTableRefusesIsExitTwoNamingTheRule) {
  const auto cnn = run_command(std::string(GPUBENCH_EXE) + " --matrix cnn/cpu/fp32/compile --list");
  EXPECT_EQ(cnn.exit_code, 2) << cnn.output;
  EXPECT_NE(cnn.output.find("compile does not apply to cnn"), std::string::npos) << cnn.output;
  const auto cuda = run_command(std::string(GPUBENCH_EXE) + " --matrix mlp/cuda/fp32/compile --list");
  EXPECT_EQ(cuda.exit_code, 2) << cuda.output;
  EXPECT_NE(cuda.output.find("compile with cuda"), std::string::npos) << cuda.output;
}

}  // namespace
}  // namespace gpubench
