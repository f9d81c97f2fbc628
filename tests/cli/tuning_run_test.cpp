// End to end: the tuning variants that run on a CPU (fused and foreach Adam, the CNN in
// channels_last) through the CLI, each against its baseline on the same seed and data.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/report_json.h"
#include "support/run_command.h"
#include "support/schema_validation.h"

namespace gpubench {
namespace {

using test_support::find_row;
using test_support::read_json;

const nlohmann::json* find_comparison(const nlohmann::json& report, const std::string& candidate) {
  for (const auto& comparison : report["comparisons"])
    if (comparison.value("candidate", "") == candidate) return &comparison;
  return nullptr;
}

TEST(TuningRun, CpuVariantsRunWithLossParityAndTheirComparisons) {
  const std::string dir = test_support::make_temp_dir("tuning");
  const auto run = test_support::run_command(
      std::string(GPUBENCH_EXE) +
      " --matrix mlp/cpu/fp32,mlp/cpu/fp32/adam-foreach,mlp/cpu/fp32/adam-fused,cnn/cpu/fp32,cnn/cpu/fp32/channels-last"
      " --steps 6 --warmup 1 --batch-size 16 --threads 1 --format json --out " + dir + "/report.json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto report = read_json(dir + "/report.json");
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  for (const std::string id : {"mlp/cpu/fp32/adam-foreach", "mlp/cpu/fp32/adam-fused", "cnn/cpu/fp32/channels-last"}) {
    const auto* row = find_row(report, id);
    ASSERT_NE(row, nullptr) << id;
    ASSERT_EQ((*row)["status"], "ok") << row->dump();
    EXPECT_TRUE((*row)["checkpoint"]["outputs_equal"].get<bool>()) << id << ": saved and loaded in its own layout";
    for (const auto& warning : (*row)["warnings"])
      EXPECT_EQ(warning.get<std::string>().find("late loss differs"), std::string::npos) << id << ": " << warning;
    const auto* comparison = find_comparison(report, id);
    ASSERT_NE(comparison, nullptr) << id;
    EXPECT_NEAR((*comparison)["loss_ratio"].get<double>(), 1.0, 0.02) << id << ": the same math trains the same";
  }
  EXPECT_EQ((*find_comparison(report, "mlp/cpu/fp32/adam-fused"))["kind"], "adam_fused_vs_loop");
  EXPECT_EQ((*find_comparison(report, "mlp/cpu/fp32/adam-foreach"))["kind"], "adam_foreach_vs_loop");
  EXPECT_EQ((*find_comparison(report, "cnn/cpu/fp32/channels-last"))["kind"], "channels_last_vs_contiguous");
  EXPECT_EQ((*find_row(report, "mlp/cpu/fp32/adam-fused"))["config"]["techniques"], nlohmann::json::array({"adam-fused"}));
  EXPECT_EQ((*find_row(report, "mlp/cpu/fp32/adam-fused"))["config"]["adam_kernel"], "adam-fused");
}

}  // namespace
}  // namespace gpubench
