// scripts/ci-perf-check.sh end to end: its bad input, and the same-job mode (base and head
// builds interleaved, compared as pairs) on real quick runs: the same build passes, a build
// with a large injected slowdown (hidden --test-step-delay-ms) fails with exit 1. What the
// gate can resolve on this VM is measured in README, not asserted here.
// Registered RUN_SERIAL: another test on the other core would skew some runs only.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/file_text.h"

namespace gpubench {
namespace {

using test_support::run_command;

const std::string kScript = std::string(GPUBENCH_SOURCE_DIR) + "/scripts/ci-perf-check.sh";

// An executable wrapper that runs the matrix with `extra` flags after the script's own,
// appending `name` to dir/order for each matrix run (`compare` and `report` run as they are:
// the head binary compares and draws too).
std::string wrapper(const std::string& dir, const std::string& name, const std::string& extra = "") {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << "#!/bin/sh\ncase $1 in compare | report) exec " << GPUBENCH_EXE << " \"$@\" ;; esac\necho " << name
                      << " >> " << dir << "/order\nexec " << GPUBENCH_EXE << " \"$@\" " << extra << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

using test_support::file_text;

// One mlp config, one thread (GPUBENCH_CI_ARGS: less exposed to the rest of the
// machine), 3 pairs; `compare_flags` go after "--".
test_support::CommandResult same_job(const std::string& base_bin, const std::string& head_bin,
                                     const std::string& out_dir, const std::string& compare_flags = "") {
  return run_command("GPUBENCH_CI_MATRIX=mlp/cpu/fp32 GPUBENCH_CI_ARGS='--threads 1' GPUBENCH=" + head_bin + " bash " +
                     kScript + " --base-bin " + base_bin + " --runs 3 " + out_dir +
                     (compare_flags.empty() ? "" : " -- " + compare_flags));
}

TEST(CiPerfCheck, BadInputIsExitTwoWithTheReason) {
  const auto none = run_command("bash " + kScript);
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.output.find("usage:"), std::string::npos) << none.output;
  const auto missing = run_command("bash " + kScript + " --base-bin /nonexistent/gpubench");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("base binary '/nonexistent/gpubench' is not an executable file"), std::string::npos)
      << missing.output;
  const auto one_run = run_command("bash " + kScript + " --base-bin " + std::string(GPUBENCH_EXE) + " --runs 1");
  EXPECT_EQ(one_run.exit_code, 2);
  EXPECT_NE(one_run.output.find("--runs 1: the same-job check needs at least 2 runs a side"), std::string::npos)
      << one_run.output;
  const auto octal = run_command("bash " + kScript + " --base-bin " + std::string(GPUBENCH_EXE) + " --runs 08");
  EXPECT_EQ(octal.exit_code, 2);
  EXPECT_NE(octal.output.find("--runs '08' is not a whole number >= 1"), std::string::npos) << octal.output;
  const auto both = run_command("bash " + kScript + " " + kScript + " --base-bin " + std::string(GPUBENCH_EXE));
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.output.find("give a BASELINE or --base-bin, not both"), std::string::npos) << both.output;
  const auto help = run_command("bash " + kScript + " --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("--base-bin BASE_GPUBENCH"), std::string::npos) << help.output;
  const auto no_baseline = run_command("bash " + kScript + " /nonexistent/baseline.json");
  EXPECT_EQ(no_baseline.exit_code, 2);
  EXPECT_NE(no_baseline.output.find("baseline '/nonexistent/baseline.json' does not exist"), std::string::npos);
  // A baseline that is not a gpubench report: refused with compare's reason before the
  // matrix runs (it ran the whole matrix first).
  const std::string not_report_dir = test_support::make_temp_dir("perf-check-not-report");
  std::ofstream(not_report_dir + "/baseline.json") << "{\"name\": \"not a report\"}";
  const auto not_report = run_command("GPUBENCH=" + std::string(GPUBENCH_EXE) + " bash " + kScript + " " + not_report_dir +
                                      "/baseline.json " + not_report_dir + "/out");
  EXPECT_EQ(not_report.exit_code, 2) << not_report.output;
  EXPECT_NE(not_report.output.find("cannot be compared: BASE report '" + not_report_dir +
                                   "/baseline.json' lacks \"schema_version\""),
            std::string::npos)
      << not_report.output;
  EXPECT_FALSE(std::ifstream(not_report_dir + "/out/current.json").good()) << "the matrix ran";
  const auto stray = run_command("bash " + kScript + " --base-bin " + std::string(GPUBENCH_EXE) + " out extra");
  EXPECT_EQ(stray.exit_code, 2);
  EXPECT_NE(stray.output.find("unexpected argument 'extra' (compare flags go after --)"), std::string::npos)
      << stray.output;
  const std::string dir = test_support::make_temp_dir("perf-check-args");
  const auto bad_args = run_command("GPUBENCH_CI_ARGS='--threads none' GPUBENCH=" + std::string(GPUBENCH_EXE) +
                                    " bash " + kScript + " --base-bin " + std::string(GPUBENCH_EXE) + " " + dir);
  EXPECT_EQ(bad_args.exit_code, 2);
  EXPECT_NE(bad_args.output.find("refused its input (exit 2)"), std::string::npos) << bad_args.output;
  EXPECT_NE(bad_args.output.find("--threads"), std::string::npos) << "gpubench's own message: " << bad_args.output;
}

TEST(CiPerfCheck, SameJobPassesTheSameBuildAndFailsAnInjectedSlowdown) {
  const std::string dir = test_support::make_temp_dir("perf-check");
  const std::string base = wrapper(dir, "base"), same = wrapper(dir, "head");
  // 100 ms on a ~35 ms step: about -75% samples/s. Three pairs give the paired t-test 2
  // degrees of freedom (t = 9.9 needed at alpha 0.01, 4.3 at the 0.05 passed below), so
  // the slowdown must dwarf pair noise of 10-15%: 15 ms (-30%) at alpha 0.01 was not
  // always enough on this VM (t = 6 in one CI run).
  const std::string slow = wrapper(dir, "slow", "--test-step-delay-ms 100");

  // A/A: alpha 0.01 leaves a 0.5% chance of a false regression; a load spike from outside
  // the test run can add to it, so two chances. A gate that flags noise fails both.
  test_support::CommandResult aa;
  for (int attempt = 0; attempt < 2; ++attempt) {
    aa = same_job(base, same, dir + "/aa");
    if (aa.exit_code == 0) break;
  }
  EXPECT_EQ(aa.exit_code, 0) << aa.output;
  EXPECT_NE(aa.output.find("### gpubench compare: no regression"), std::string::npos) << aa.output;
  EXPECT_NE(aa.output.find("a paired (run i of BASE with run i of NEW) t-test"), std::string::npos) << aa.output;
  for (const char* run : {"/aa/base/run-01.json", "/aa/base/run-03.json", "/aa/head/run-02.json"})
    EXPECT_TRUE(std::ifstream(dir + run).good()) << run;
  EXPECT_TRUE(std::ifstream(dir + "/aa/summary.md").good());
  // The same verdict for the CI server's test view, and drawn (scripts/setup.sh installs Chart.js).
  EXPECT_NE(file_text(dir + "/aa/junit.xml").find("<testcase"), std::string::npos);
  EXPECT_EQ(file_text(dir + "/aa/junit.xml").find("<failure"), std::string::npos);
  EXPECT_NE(file_text(dir + "/aa/compare.html").find("<!DOCTYPE html>"), std::string::npos) << aa.output;
  // ABBA: base,head then head,base, so that drift through the job is not one side's.
  const std::string order = file_text(dir + "/order");
  EXPECT_EQ(order.substr(order.size() - 30), "base\nhead\nhead\nbase\nbase\nhead\n") << order;
  std::remove((dir + "/order").c_str());

  const auto ab = same_job(base, slow, dir + "/ab", "--alpha 0.05");
  EXPECT_EQ(ab.exit_code, 1) << ab.output;
  EXPECT_NE(ab.output.find("alpha 0.05"), std::string::npos) << "compare flags after -- reach compare: " << ab.output;
  EXPECT_NE(ab.output.find("**REGRESSION**"), std::string::npos) << ab.output;
  EXPECT_NE(ab.output.find("| 3/3 |"), std::string::npos) << "three runs a side: " << ab.output;
  EXPECT_NE(file_text(dir + "/ab/junit.xml").find("type=\"regression\""), std::string::npos);
  EXPECT_TRUE(std::ifstream(dir + "/ab/compare.html").good()) << "a regression is drawn too: " << ab.output;
}

TEST(CiPerfCheck, BaselineModeTakesAReportOrADirectoryOfRuns) {
  const std::string dir = test_support::make_temp_dir("perf-check-baseline");
  const std::string env = "GPUBENCH_CI_MATRIX=mlp/cpu/fp32 GPUBENCH_CI_ARGS='--threads 1' GPUBENCH=" +
                          std::string(GPUBENCH_EXE) + " ";
  // A baseline made here a moment ago, a threshold wide enough for one run a side.
  ASSERT_EQ(run_command(env + "bash " + kScript + " --base-bin " + GPUBENCH_EXE + " --runs 2 " + dir + "/made").exit_code,
            0);
  const auto one = run_command(env + "bash " + kScript + " " + dir + "/made/base/run-01.json " + dir +
                               "/one -- --threshold 50%");
  EXPECT_EQ(one.exit_code, 0) << one.output;
  EXPECT_NE(one.output.find("| n base/new |"), std::string::npos) << "per-step samples in single mode: " << one.output;
  EXPECT_TRUE(std::ifstream(dir + "/one/current.json").good());

  const auto runs = run_command(env + "bash " + kScript + " " + dir + "/made/base --runs 2 " + dir +
                                "/runs -- --threshold 50%");
  EXPECT_EQ(runs.exit_code, 0) << runs.output;
  EXPECT_NE(runs.output.find("Welch's t-test on the log run values"), std::string::npos) << runs.output;
  EXPECT_TRUE(std::ifstream(dir + "/runs/current/run-02.json").good());

  // A baseline's strings reach the CI page (GITHUB_STEP_SUMMARY) as text: no image, no
  // link, no line of its own.
  nlohmann::json baseline = nlohmann::json::parse(file_text(dir + "/made/base/run-01.json"));
  baseline["tool"]["version"] = "0.1\n**Result:** 0 regressions <img src=https://x.example/p.png> [link](https://x.example)";
  std::ofstream(dir + "/hostile.json") << baseline.dump();
  const auto hostile = run_command("GITHUB_STEP_SUMMARY=" + dir + "/summary.md " + env + "bash " + kScript + " " + dir +
                                   "/hostile.json " + dir + "/hostile -- --threshold 50%");
  EXPECT_LE(hostile.exit_code, 1) << hostile.output;
  const std::string summary = file_text(dir + "/summary.md");
  EXPECT_NE(summary.find("(gpubench 0.1\\\\n\\*\\*Result:\\*\\* 0 regressions"), std::string::npos) << summary;
  EXPECT_EQ(summary.find(" <img"), std::string::npos) << "unescaped: " << summary;
  EXPECT_EQ(summary.find(" [link]("), std::string::npos) << "unescaped: " << summary;
  EXPECT_NE(summary.find(" \\<img src=https\\://x.example/p.png\\>"), std::string::npos) << summary;
  const std::size_t result_line = summary.find("\n**Result:**");
  EXPECT_NE(result_line, std::string::npos) << summary;
  EXPECT_EQ(summary.find("\n**Result:**", result_line + 1), std::string::npos) << "a second Result line: " << summary;

  const auto no_runs = run_command(env + "bash " + kScript + " " + dir + "/made/base " + dir + "/x");
  EXPECT_EQ(no_runs.exit_code, 2);
  EXPECT_NE(no_runs.output.find("is a directory of runs: give --runs N >= 2"), std::string::npos) << no_runs.output;
}

}  // namespace
}  // namespace gpubench
