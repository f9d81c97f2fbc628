// `gpubench compare` from the command line on small fixture reports: the flags reach the
// comparison, directories of runs work, and bad combinations exit 2 with the reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

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
  EXPECT_NE(alpha.output.find("--alpha '0.7' is invalid: expected a significance level from 0.0001 to 0.5"),
            std::string::npos)
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

// Where the U test cannot reach alpha compare falls back to the threshold alone, so an
// alpha stricter than the tests support called more regressions, not fewer; past double's
// range it read as inf or 0. Refused with the range.
TEST(CompareCli, AlphaOutsideTheRangeWhereTheTestsWorkIsRefused) {
  const fs::path dir = test_support::make_temp_dir("compare-cli-alpha");
  const std::string a = write_report(dir, "a.json", 1, 10);
  for (const std::string alpha : {"1e-300", "1e-320", "1e400", "0x1p-3", "nan", "0", "-0.01", " 0.01"}) {
    const auto result = run_command(compare(a + " " + a + " --alpha '" + alpha + "'"));
    EXPECT_EQ(result.exit_code, 2) << alpha << ": " << result.output;
    EXPECT_NE(result.output.find("--alpha '" + alpha + "' is invalid: expected a significance level from 0.0001 to 0.5"),
              std::string::npos)
        << result.output;
  }
  EXPECT_EQ(run_command(compare(a + " " + a + " --alpha 0.0001")).exit_code, 0);
  fs::remove_all(dir);
}

// A report is an untrusted CI artifact: its strings reach the terminal escaped, and a
// config id that is not one is refused on load.
TEST(CompareCli, ControlCharactersInAReportNeverReachTheTerminalRaw) {
  const fs::path dir = test_support::make_temp_dir("compare-cli-escape");
  const std::string a = (dir / "a.json").string(), hostile = (dir / "hostile.json").string();
  std::ofstream(a) << testing::report({testing::ok_result("mlp/cpu/fp32", testing::step_times(1, 40, 10)),
                                       testing::ok_result("mlp/cpu/bf16", testing::step_times(4, 40, 10))})
                          .dump();
  std::ofstream(hostile) << testing::report({testing::ok_result("mlp/cpu/fp32", testing::step_times(2, 40, 10)),
                                             testing::failed_result("mlp/cpu/bf16", "failed", "boom\x1b]0;owned\x07\x1b[2J")})
                                .dump();
  // Markdown shows the escapes as text: their backslashes and brackets escaped in turn.
  for (const auto& [format, shown] : {std::pair{"table", "boom\\x1b]0;owned\\x07\\x1b[2J"},
                                      std::pair{"markdown", "boom\\\\x1b\\]0;owned\\\\x07\\\\x1b\\[2J"}}) {
    const auto result = run_command(compare(a + " " + hostile + " --format " + format));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_EQ(result.output.find('\x1b'), std::string::npos) << format << ": " << result.output;
    EXPECT_EQ(result.output.find('\x07'), std::string::npos) << format;
    EXPECT_NE(result.output.find(shown), std::string::npos) << result.output;
  }
  const std::string bad_id = (dir / "bad-id.json").string();
  std::ofstream(bad_id) << testing::report({testing::ok_result("mlp/cpu/\x1b[31mfp32", testing::step_times(3, 40, 10))})
                               .dump();
  const auto refused = run_command(compare(a + " " + bad_id));
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("has config_id \"mlp/cpu/\\u001b[31mfp32\", expected a config id such as mlp/cpu/fp32"),
            std::string::npos)
      << refused.output;
  EXPECT_EQ(refused.output.find('\x1b'), std::string::npos) << refused.output;
  fs::remove_all(dir);
}

// --junit over a compared report replaced it with XML (exit 0); into a compared folder it
// would be read as a run the next time. Refused before anything is read, the reports kept.
TEST(CompareCli, AJunitFileThatIsAnInputIsRefused) {
  const fs::path dir = test_support::make_temp_dir("compare-cli-junit");
  const std::string a = write_report(dir, "base.json", 1, 10), b = write_report(dir, "new.json", 2, 10);
  write_report(dir / "runs", "run-01.json", 3, 10);
  write_report(dir / "runs", "run-02.json", 4, 10);
  write_report(dir / "head", "run-01.json", 5, 10);
  write_report(dir / "head", "run-02.json", 6, 10);
  fs::create_symlink(dir, dir / "link");
  const std::string runs = (dir / "runs").string(), head = (dir / "head").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {a + " " + b + " --junit " + a, "--junit '" + a + "' is BASE ('" + a + "')"},
      {a + " " + b + " --junit " + (dir / "." / "new.json").string(), "is NEW ('" + b + "')"},
      {a + " " + b + " --junit " + (dir / "link" / "base.json").string(), "is BASE"},
      {runs + " " + head + " --junit " + runs + "/junit.xml", "lies inside BASE ('" + runs + "')"},
      {runs + " " + head + " --junit " + head + "/run-03.json", "lies inside NEW ('" + head + "')"},
  };
  for (const auto& [args, message] : cases) {
    const auto result = run_command(compare(args));
    EXPECT_EQ(result.exit_code, 2) << args << ": " << result.output;
    EXPECT_NE(result.output.find(message), std::string::npos) << args << ": " << result.output;
    EXPECT_NE(result.output.find("it would overwrite an input"), std::string::npos) << result.output;
  }
  EXPECT_TRUE(nlohmann::json::parse(std::ifstream(a))["results"].is_array()) << "BASE is still a report";
  EXPECT_TRUE(nlohmann::json::parse(std::ifstream(b))["results"].is_array()) << "NEW is still a report";
  EXPECT_FALSE(fs::exists(head + "/run-03.json"));
  EXPECT_EQ(run_command(compare(a + " " + b + " --junit " + (dir / "compare.xml").string())).exit_code, 0)
      << "beside them it is written";
  fs::remove_all(dir);
}

// Standard output that cannot be written is one documented code (4), whatever the verdict
// would have been: not 1, which CI reads as a regression, and not 0.
TEST(CompareCli, StandardOutputThatCannotBeWrittenIsExitFourWhateverTheVerdict) {
  const fs::path dir = test_support::make_temp_dir("compare-cli-full");
  const std::string a = write_report(dir, "a.json", 1, 10), slow = write_report(dir, "slow.json", 2, 20);
  ASSERT_EQ(run_command(compare(a + " " + slow + " > /dev/null")).exit_code, 1) << "the fixture is a regression";
  for (const std::string& next : {slow, a}) {
    const auto result = run_command("{ " + compare(a + " " + next) + " > /dev/full; }");
    EXPECT_EQ(result.exit_code, 4) << next << ": " << result.output;
    EXPECT_NE(result.output.find("cannot write to standard output"), std::string::npos) << result.output;
  }
  fs::remove_all(dir);
}

TEST(CompareCli, AReportComparedWithItselfIsWarnedAbout) {
  const fs::path dir = test_support::make_temp_dir("compare-cli-self");
  const std::string a = write_report(dir, "a.json", 1, 10);
  const auto result = run_command(compare(a + " " + (dir / "." / "a.json").string()));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("warning: BASE and NEW are the same file"), std::string::npos) << result.output;
  EXPECT_EQ(run_command(compare(a + " " + write_report(dir, "b.json", 2, 10))).output.find("the same file"),
            std::string::npos);
  fs::remove_all(dir);
}

// A path that is not UTF-8 is a valid file name: compare reads it and writes its JSON.
TEST(CompareCli, APathThatIsNotUtf8IsCompared) {
  const fs::path dir = test_support::make_temp_dir("compare-cli-latin1");
  const std::string a = write_report(dir, "a.json", 1, 10), b = write_report(dir, "r\xe9sultat.json", 2, 10);
  const auto result = run_command(compare(a + " '" + b + "' --format json"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(nlohmann::json::accept(result.output)) << result.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpubench
