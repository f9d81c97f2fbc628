// End to end: a TorchScript archive as `--model NAME=FILE.pt` with its task (the archives
// tests/workloads/scripted_reference.py exports, a ctest fixture) runs under the whole
// matrix on this CPU: every config that can apply ok, the rest skipped with their reasons;
// a missing task and bad archives are exit 2 naming what is wrong.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/report_json.h"
#include "support/run_command.h"
#include "support/schema_validation.h"

namespace gpubench {
namespace {

using test_support::find_row;
using test_support::run_command;

std::string archive(const std::string& name) {
  const char* root = std::getenv("GPUBENCH_SCRIPTED_REFERENCE_DIR");
  return root == nullptr ? "" : std::string(root) + "/" + name;
}

#define REQUIRE_ARCHIVES()                                                                    \
  if (archive("resnet18.pt").empty() || !std::filesystem::exists(archive("resnet18.pt"))) \
  GTEST_SKIP() << "the archives are not there: ctest runs scripted_reference.py first"

TEST(ScriptedRun, Resnet18RunsTheWholeMatrixOnThisCpu) {
  REQUIRE_ARCHIVES();
  const std::string dir = test_support::make_temp_dir("scripted-run");
  const auto run = run_command(std::string(GPUBENCH_EXE) + " --model r18=" + archive("resnet18.pt") +
                               " --input r18=3x64x64 --classes r18=1000 --matrix all --workload r18 --preset quick "
                               "--steps 2 --warmup 1 --batch-size 4 --threads 1 --format json --out " + dir +
                               "/report.json > /dev/null");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto report = test_support::read_json(dir + "/report.json");
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  EXPECT_GE(test_support::rows_that_ran(report).size(), 4u) << "fp32, bf16, ddp-2, channels-last and the CPU recipe";
  if (const auto* dp = find_row(report, "r18/cuda/fp32/pinned/dp")) {
    EXPECT_NE((*dp)["reason"].get<std::string>().find("no CUDA device"), std::string::npos) << (*dp)["reason"];
  }
  const auto* fp32 = find_row(report, "r18/cpu/fp32");
  ASSERT_NE(fp32, nullptr);
  EXPECT_EQ((*fp32)["workload"]["parameters"], 11689512);
  EXPECT_TRUE((*fp32)["checkpoint"]["outputs_equal"].get<bool>());
  EXPECT_NE((*fp32)["flops"]["convention"].get<std::string>().find("operator observer"), std::string::npos);
  EXPECT_GT((*fp32)["flops"]["training_per_sample"].get<double>(), 0);
}

TEST(ScriptedRun, AMissingTaskAndBadArchivesAreExitTwoNamingWhatIsWrong) {
  REQUIRE_ARCHIVES();
  const std::string exe = GPUBENCH_EXE;
  for (const auto& [args, fragment] : std::vector<std::pair<std::string, std::string>>{
           {"--model r=" + archive("resnet18.pt") + " --list", "give --input r=CxHxW --classes r=N"},
           {"--model r=" + archive("resnet18.pt") + " --input r=3x64x64 --classes r=1000 --vocab r=100 --list",
            "contradict each other"},
           {"--model r=" + archive("truncated.pt") + " --input r=3x64x64 --classes r=1000 --list", "is not a TorchScript module"},
           {"--model r=" + archive("pickle.pt") + " --input r=3x64x64 --classes r=1000 --list", "torch.save() pickle?"},
           {"--model r=" + archive("two_inputs.pt") + " --input r=3x8x8 --classes r=10 --list", "forward takes 2 inputs"},
           {"--model r=" + archive("resnet18.pt") + " --input r=3x64x64 --classes r=10 --list", "expected [2, 10]"},
           {"--model r=" + archive("resnet18.pt") + " --input r=3x64x64 --classes r=1000 --matrix r/cpu/fp32/ckpt --list",
            "ckpt does not apply to r"},
           {"--model r=" + archive("asserts.pt") + " --input r=3x8x8 --classes r=10 --list",
            "its forward fails on the task's input"},
           // A tree's errors name the --model's --data, not resnet50's.
           {"--model r=" + archive("scripted_bn.pt") + " --input r=3x8x8 --classes r=10 --data r=/nonexistent --list",
            "--data r='/nonexistent' is not a directory"},
           {"--input x=3x8x8 --list", "NAME a --model"},
           // Contradictions and duplicates of the task flags are refused, not the last one kept
           // or ignored (issue 61, item 25).
           {"--model r=" + archive("pool.pt") + " --input r=3x8x8 --classes r=10 --seq-len r=16 --list",
            "--seq-len r=16: --model r is a classifier"},
           {"--model r=" + archive("pool.pt") + " --input r=3x8x8 --classes r=5 --classes r=7 --list",
            "--classes is given twice for r"},
           {"--model r=" + archive("pool.pt") + " --input r=3x8x8 --input r=3x9x9 --classes r=10 --list",
            "--input is given twice for r"},
           {"--model r=" + archive("lm.pt") + " --vocab r=100 --vocab r=50 --list", "--vocab is given twice for r"}}) {
    const auto run = run_command(exe + " " + args);
    EXPECT_EQ(run.exit_code, 2) << args << ": " << run.output;
    EXPECT_NE(run.output.find(fragment), std::string::npos) << args << ": " << run.output;
    EXPECT_EQ(run.output.find("frame #"), std::string::npos) << "no stack trace: " << run.output;
  }
}

// The archive is an input to the output rules (cli/output_rules.h): --out or --trace over it
// replaced the model with the report, exit 0. Now exit 2 before anything runs, the archive
// as it was.
TEST(ScriptedRun, NoOutputIsTheArchive) {
  REQUIRE_ARCHIVES();
  const std::string dir = test_support::make_temp_dir("scripted-inputs"), copy = dir + "/r18.pt";
  std::filesystem::copy_file(archive("resnet18.pt"), copy);
  const auto size = std::filesystem::file_size(copy);
  const std::string run = std::string(GPUBENCH_EXE) + " --model r=" + copy +
                          " --input r=3x32x32 --classes r=1000 --matrix r/cpu/fp32 --steps 1 --warmup 0 --threads 1";
  for (const auto& [outputs, fragment] : std::vector<std::pair<std::string, std::string>>{
           {" --out " + copy, "--out '" + copy + "' is --model r ('" + copy + "')"},
           {" --out " + dir + "/r.json --trace " + dir + "/./r18.pt", "--trace '" + dir + "/./r18.pt' is --model r"}}) {
    const auto result = run_command(run + outputs);
    EXPECT_EQ(result.exit_code, 2) << outputs << ": " << result.output;
    EXPECT_NE(result.output.find(fragment), std::string::npos) << outputs << ": " << result.output;
    EXPECT_EQ(std::filesystem::file_size(copy), size) << "the archive was replaced";
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpubench
