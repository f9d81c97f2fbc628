// End to end: `--overhead` on a real CPU config through the CLI and its child process.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/report_json.h"
#include "support/run_command.h"
#include "support/schema_validation.h"

namespace gpubench {
namespace {

using test_support::find_row;
using test_support::read_json;

class OverheadRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = test_support::make_temp_dir("overhead");
    run_ = new test_support::CommandResult(test_support::run_command(
        std::string(GPUBENCH_EXE) + " --matrix mlp/cpu/fp32 --overhead --steps 40 --warmup 1 --threads 1 --format table --out " +
        dir_ + "/report.json"));
  }
  static void TearDownTestSuite() { delete run_; }
  static inline std::string dir_;
  static inline test_support::CommandResult* run_ = nullptr;
};

TEST_F(OverheadRun, ReportHasBothLevelsWithMeasuredStepsAndAJudgement) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  const auto report = read_json(dir_ + "/report.json");
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  EXPECT_EQ(report["matrix"]["overhead_mode"], true);
  const auto* row = find_row(report, "mlp/cpu/fp32");
  ASSERT_NE(row, nullptr);
  ASSERT_EQ((*row)["status"], "ok") << row->dump();
  const auto& overhead = (*row)["overhead"];
  // 40 steps in segments of 5: 8 segments, the first two of each left out, 4 bare + 4 timed.
  EXPECT_EQ(overhead["excluded_steps"], 16);
  ASSERT_EQ(overhead["levels"].size(), 2u) << "no CUPTI level on a CPU config";
  EXPECT_EQ(overhead["levels"][0]["name"], "bare");
  EXPECT_EQ(overhead["levels"][0]["steps"], 12);
  const auto& timers = overhead["levels"][1];
  EXPECT_EQ(timers["name"], "timers_nvtx");
  EXPECT_EQ(timers["steps"], 12);
  EXPECT_GT(timers["median_step_ms"].get<double>(), 0);
  const auto ci = timers["overhead"]["ci95"];
  EXPECT_LE(ci[0].get<double>(), timers["overhead"]["estimate"].get<double>());
  EXPECT_GE(ci[1].get<double>(), timers["overhead"]["estimate"].get<double>());
  EXPECT_TRUE(timers["judgement"].is_string());
  // The probes' own host time, clocked around their calls: the bare level only dispatches
  // to paused probes; the instrumented one reads clocks and RSS and pushes NVTX ranges.
  const double bare_us = overhead["levels"][0]["probe_cpu_us_per_step"].get<double>();
  const double timers_us = timers["probe_cpu_us_per_step"].get<double>();
  EXPECT_GE(bare_us, 0);
  EXPECT_GT(timers_us, bare_us);
  EXPECT_GT(timers["probe_cpu_share_of_step"].get<double>(), 0);
  EXPECT_EQ(overhead["cupti_note"], "CUPTI traces GPU activity: not measured on a CPU config");
  // The row's own numbers come from the instrumented steps only: the wall timer saw 20.
  EXPECT_EQ((*row)["steps"]["measured"], 20);
}

TEST_F(OverheadRun, TablePrintsTheOverheadSection) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  EXPECT_NE(run_->output.find("harness overhead (--overhead)"), std::string::npos) << run_->output;
  EXPECT_NE(run_->output.find("timers_nvtx"), std::string::npos) << run_->output;
}

}  // namespace
}  // namespace gpubench
