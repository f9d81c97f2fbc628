// `gpubench report` and `gpubench compare --junit` through the real binary: which kind of
// page the arguments ask for, the files written, and every bad input refused with exit 2
// before anything is read or written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/run_command.h"

namespace gpubench {
namespace {

using test_support::run_command;

const std::string kExe = GPUBENCH_EXE;
const std::string kExamples = GPUBENCH_SOURCE_DIR "/reports/examples";
const std::string kQuick = kExamples + "/cpu-quick.json";
const std::string kRuns = kExamples + "/perf-check/ab-10-pairs-threads1-sleep5ms";

class ReportCli : public ::testing::Test {
 protected:
  std::string dir = test_support::make_temp_dir("report-cli");
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string read(const std::string& name) {
    std::ifstream in(dir + "/" + name);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  bool exists(const std::string& name) { return std::filesystem::exists(dir + "/" + name); }
};

TEST_F(ReportCli, OneReportWritesThePageAndEveryExport) {
  const auto run = run_command(kExe + " report " + kQuick + " --html " + dir + "/q.html --bencher " + dir +
                               "/bmf.json --github-benchmark " + dir + "/gh.json --github-benchmark-smaller " + dir +
                               "/gh-small.json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("wrote " + dir + "/q.html"), std::string::npos) << run.output;
  const std::string page = read("q.html");
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("Chart.js v3"), std::string::npos);  // inlined, not linked
  EXPECT_NE(page.find("\"kind\":\"report\""), std::string::npos);
  EXPECT_TRUE(nlohmann::json::parse(read("bmf.json")).contains("mlp/cpu/fp32"));
  EXPECT_EQ(nlohmann::json::parse(read("gh.json")).size(), 4u);
  EXPECT_EQ(nlohmann::json::parse(read("gh-small.json")).size(), 8u) << "step time and host peak RSS of 4 rows";
}

TEST_F(ReportCli, TwoReportsOrTwoFoldersAreAComparisonAndAFolderWithHistoryAHistory) {
  auto run = run_command(kExe + " report " + kRuns + "/base/run-01.json " + kRuns + "/head/run-01.json --html " + dir +
                         "/c.html");
  ASSERT_EQ(run.exit_code, 0) << run.output;  // 0 whatever compare decides: the page is the product
  EXPECT_NE(read("c.html").find("\"kind\":\"compare\""), std::string::npos);
  run = run_command(kExe + " report " + kRuns + "/base " + kRuns + "/head --paired --threshold 5% --html " + dir +
                    "/r.html");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(read("r.html").find("\"paired\":true"), std::string::npos);
  run = run_command(kExe + " report --history " + kRuns + "/base --html " + dir + "/h.html");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(read("h.html").find("\"kind\":\"history\""), std::string::npos);
}

TEST_F(ReportCli, RefusesWhatItCannotDoWithExit2AndWritesNothing) {
  const std::string html = " --html " + dir + "/x.html";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"report " + kQuick, "nothing to write"},
      {"report " + kRuns + "/base" + html, "is a folder: add --history"},
      {"report --history " + kQuick + html, "--history '" + kQuick + "': is not a folder, expected a folder of gpubench reports"},
      {"report --history " + dir + "/gone" + html, "--history '" + dir + "/gone': no such folder"},
      {"report " + kQuick + " " + kQuick + " " + kQuick + html, "(see gpubench --help)"},  // CLI11: at most 2
      {"report " + kRuns + "/base " + kRuns + "/head --bencher " + dir + "/b.json", "--bencher exports one report"},
      {"report " + kQuick + " --threshold 5%" + html, "--threshold is for a comparison"},
      {"report " + kQuick + " --html " + kQuick, "' is REPORT ('"},
      {"report " + kQuick + " --html " + dir + "/x.html --bencher " + dir + "/./x.html", "is --bencher ('"},
      {"report --history " + dir + " --html " + dir + "/page.json", "lies inside the --history folder"},
      {"report " + kQuick + " " + kQuick + " --metric speed" + html, "unknown --metric 'speed'"},
      {"report " + kQuick + " " + kQuick + " --threshold 5" + html, "did you mean 5%"},
      {"report " + dir + "/missing.json" + html, "cannot read report '" + dir + "/missing.json'"},
      {"report " + kQuick + " --html " + dir + "/no/such/dir/x.html", "--html"},
      {"--steps 3 report " + kQuick + html, "--steps is a flag of the matrix run, not of report"},
  };
  for (const auto& [args, message] : cases) {
    const auto run = run_command(kExe + " " + args);
    EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.output;
    EXPECT_NE(run.output.find(message), std::string::npos) << args << "\n" << run.output;
    EXPECT_EQ(run.output.find("report report"), std::string::npos) << args << "\n" << run.output;
  }
  EXPECT_FALSE(exists("x.html"));
  EXPECT_FALSE(exists("b.json"));
}

TEST_F(ReportCli, CompareWritesJunitAndKeepsItsExitCode) {
  const std::string xml = dir + "/compare.xml";
  auto run = run_command(kExe + " compare " + kRuns + "/base " + kRuns + "/head --paired --junit " + xml);
  EXPECT_EQ(run.exit_code, 1) << run.output;  // the regressions, as without --junit
  const std::string text = read("compare.xml");
  EXPECT_NE(text.find("<testsuites name=\"gpubench compare\" tests=\"3\" failures=\"2\""), std::string::npos) << text;
  EXPECT_NE(text.find("<failure type=\"regression\" message=\"regression: samples_per_s -16.87%"), std::string::npos);
  run = run_command(kExe + " compare " + kQuick + " " + kQuick + " --junit " + dir + "/none/x.xml");
  EXPECT_EQ(run.exit_code, 2) << run.output;  // refused before the reports are read
}

}  // namespace
}  // namespace gpubench
