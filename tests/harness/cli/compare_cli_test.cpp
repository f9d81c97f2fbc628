// `gpubench compare` from the command line on small fixture reports: the flags reach the
// comparison, directories of runs work, and bad combinations exit 2 with the reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "reports/compare/report_fixtures.h"
#include "support/run_command.h"

namespace gpubench {
namespace {

using test_support::run_command;
namespace fs = std::filesystem;

// dir/name holding a report with mlp at `ms` per step.
std::string write_report(const fs::path& dir, const std::string& name, std::uint32_t seed, double ms) {
  fs::create_directories(dir);
  const fs::path path = dir / name;
  std::ofstream(path) << testing::report({testing::ok_result("mlp/cpu/fp32", testing::step_times(seed, 40, ms))}).dump();
  return path.string();
}

std::string compare(const std::string& args) { return std::string(GPUBENCH_EXE) + " compare " + args; }

TEST(CompareCli, AlphaAndPairedReachTheComparison) {
  const fs::path dir = test_support::make_temp_dir("compare-cli");
  const std::string a = write_report(dir, "a.json", 1, 10), b = write_report(dir, "b.json", 2, 10);
  const auto single = run_command(compare(a + " " + b + " --alpha 0.05 --format json"));
  ASSERT_EQ(single.exit_code, 0) << single.output;
  const auto parsed = nlohmann::json::parse(single.output);
  EXPECT_EQ(parsed["alpha"], 0.05);
  EXPECT_EQ(parsed["base"]["runs"], 1);

  for (int i = 1; i <= 3; ++i) {
    const std::string name = "run-0" + std::to_string(i) + ".json";
    write_report(dir / "base", name, 10 + i, 10);
    write_report(dir / "head", name, 20 + i, 10);
  }
  const auto runs =
      run_command(compare((dir / "base").string() + " " + (dir / "head").string() + " --paired --format json"));
  ASSERT_EQ(runs.exit_code, 0) << runs.output;
  const auto paired = nlohmann::json::parse(runs.output);
  EXPECT_EQ(paired["paired"], true);
  EXPECT_EQ(paired["new"]["runs"], 3);
  EXPECT_EQ(paired["configs"][0]["decision"], "paired_run_t_test");
  fs::remove_all(dir);
}

TEST(CompareCli, BadCombinationsExitTwoWithTheReason) {
  const fs::path dir = test_support::make_temp_dir("compare-cli-bad");
  const std::string a = write_report(dir, "a.json", 1, 10);
  write_report(dir / "runs", "run-01.json", 2, 10);
  write_report(dir / "runs", "run-02.json", 3, 10);
  const auto alpha = run_command(compare(a + " " + a + " --alpha 0.7"));
  EXPECT_EQ(alpha.exit_code, 2);
  EXPECT_NE(alpha.output.find("--alpha 0.7 is out of range: expected 0 < alpha <= 0.5"), std::string::npos)
      << alpha.output;
  const auto mixed = run_command(compare(a + " " + (dir / "runs").string()));
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.output.find("BASE has 1 run and NEW 2"), std::string::npos) << mixed.output;
  const auto lone_pair = run_command(compare(a + " " + a + " --paired"));
  EXPECT_EQ(lone_pair.exit_code, 2);
  EXPECT_NE(lone_pair.output.find("--paired needs several runs a side"), std::string::npos) << lone_pair.output;
  fs::create_directories(dir / "empty");
  const auto empty = run_command(compare((dir / "empty").string() + " " + (dir / "runs").string()));
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.output.find("holds no *.json reports"), std::string::npos) << empty.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpubench
