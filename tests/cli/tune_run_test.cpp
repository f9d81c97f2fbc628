// End to end: `gpubench tune mlp` on this CPU prints a winner with its margin and writes
// the whole search as a report; bad input is exit 2 before anything runs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/report_json.h"
#include "support/run_command.h"
#include "support/schema_validation.h"

namespace gpubench {
namespace {

TEST(TuneRun, MlpOnTheCpuPrintsAWinnerAndWritesItsSearch) {
  const std::string dir = test_support::make_temp_dir("tune");
  const auto run = test_support::run_command(std::string(GPUBENCH_EXE) + " tune mlp --preset quick --steps 4 --warmup 1 "
                                             "--threads 1 --batch-size 64 --out " + dir + "/search.json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("tune winner: mlp/cpu/"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("the runner-up mlp/cpu/"), std::string::npos) << run.output;
  const auto report = test_support::read_json(dir + "/search.json");
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  const auto& tune = report["tune"];
  EXPECT_EQ(tune["workload"], "mlp");
  EXPECT_EQ(tune["device"], "cpu");
  EXPECT_GT(tune["memory_budget_bytes"].get<double>(), 0);
  bool greedy = false, batch = false, final_round = false;
  for (const auto& step : tune["steps"]) {
    greedy = greedy || step["phase"] == "greedy";
    batch = batch || step["phase"] == "batch";
    final_round = final_round || step["phase"] == "final";
  }
  EXPECT_TRUE(greedy && batch && final_round) << tune["steps"].dump(1);
  EXPECT_EQ(tune["winner"]["phase"], "final");
  EXPECT_LE(tune["margin_ci95"][0].get<double>(), tune["margin"].get<double>());
  ASSERT_EQ(report["comparisons"].size(), 1u);
  EXPECT_EQ(report["comparisons"][0]["kind"], "tune_margin");
  EXPECT_EQ(report["results"].size(), tune["steps"].size());

  // The search is a report gpubench reads (it refused it: "config_id appears twice"): its
  // rows are named by config, batch and step.
  const std::string exe = GPUBENCH_EXE, search = dir + "/search.json";
  const auto page = test_support::run_command(exe + " report " + search + " --html " + dir + "/search.html --bencher " +
                                              dir + "/bencher.json");
  EXPECT_EQ(page.exit_code, 0) << page.output;
  const auto bencher = test_support::read_json(dir + "/bencher.json");
  const std::string winner = tune["winner"]["config_id"].get<std::string>() + " batch " +
                             std::to_string(tune["winner"]["batch_size"].get<int>()) + " (final " +
                             std::to_string(tune["winner"]["round"].get<int>()) + ")";
  EXPECT_TRUE(bencher.contains(winner)) << winner << " in " << bencher.dump(1);
  const auto compared = test_support::run_command(exe + " compare " + search + " " + search + " --format json");
  EXPECT_EQ(compared.exit_code, 0) << compared.output;
  EXPECT_NE(compared.output.find("\"" + winner + "\""), std::string::npos) << compared.output;
}

TEST(TuneRun, BadInputIsExitTwoBeforeAnythingRuns) {
  for (const std::string args : {"tune nope", "tune mlp --memory-budget lots", "tune mlp --device tpu",
                                 "tune mlp --matrix all", "tune", "tune mlp --memory-budget 0"}) {
    const auto run = test_support::run_command(std::string(GPUBENCH_EXE) + " " + args);
    EXPECT_EQ(run.exit_code, 2) << args << ": " << run.output;
    EXPECT_EQ(run.output.find("[tune]"), std::string::npos) << args << " ran a candidate: " << run.output;
  }
}

}  // namespace
}  // namespace gpubench
