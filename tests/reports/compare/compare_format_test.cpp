#include "reports/compare/compare_format.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "core/config/errors.h"
#include "report_fixtures.h"

namespace gpubench {
namespace {

using nlohmann::json;
using testing::failed_result;
using testing::ok_result;
using testing::step_times;

CompareResult sample_result() {
  json base = testing::report(
      {ok_result("mlp/cpu/fp32", step_times(1, 40, 10.0)), ok_result("cnn/cpu/fp32", step_times(2, 40, 10.0)),
       ok_result("mlp/cpu/amp-bf16", step_times(3, 40, 10.0)), ok_result("mlp/cpu/few", step_times(4, 3, 10.0)),
       ok_result("transformer/cpu/fp32", step_times(5, 40, 10.0)), failed_result("cnn/cpu/amp-bf16", "ok", "")});
  json next = testing::report(
      {ok_result("mlp/cpu/fp32", step_times(11, 40, 11.0)), ok_result("cnn/cpu/fp32", step_times(12, 40, 10.0)),
       ok_result("mlp/cpu/amp-bf16", step_times(13, 40, 9.0)), ok_result("mlp/cpu/few", step_times(14, 3, 10.0)),
       ok_result("cnn/cuda/fp32", step_times(15, 40, 1.0)),
       failed_result("cnn/cpu/amp-bf16", "failed", "CUDA out of memory")});
  next["env"]["threads"] = 4;
  return compare_reports(base, "base.json", next, "new.json", CompareOptions{});
}

// The table line of a config: its id first.
std::string line_of(const std::string& text, const std::string& config_id) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(config_id + " ", 0) == 0) return line;
  return "";
}

TEST(FormatCompareTable, OneAlignedRowPerConfigWithVerdict) {
  const std::string text = format_compare(sample_result(), "table");
  EXPECT_NE(text.find("metric samples_per_s (samples/s, higher is better), threshold 5%, alpha 0.01"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("BASE base.json (gpubench 0.1.0, commit abc123)"), std::string::npos) << text;
  EXPECT_TRUE(
      std::regex_search(line_of(text, "mlp/cpu/fp32"), std::regex(R"(40/40 .*cv \d+\.\d%.* -\d+\.\d% .*REGRESSION$)")))
      << text;
  EXPECT_TRUE(std::regex_search(line_of(text, "mlp/cpu/amp-bf16"), std::regex(R"(\+\d+\.\d%.*improvement$)"))) << text;
  EXPECT_TRUE(std::regex_search(line_of(text, "cnn/cpu/fp32"), std::regex(R"(no change$)"))) << text;
  EXPECT_TRUE(std::regex_search(line_of(text, "mlp/cpu/few"), std::regex(R"(3/3 .*\(threshold only\)$)"))) << text;
  // Columns aligned: the verdict starts at the same offset on every row.
  const std::size_t at = line_of(text, "mlp/cpu/fp32").find("REGRESSION");
  EXPECT_EQ(line_of(text, "cnn/cpu/fp32").find("no change"), at);
  EXPECT_NE(text.find("99% CI"), std::string::npos);
  EXPECT_NE(text.find("compare directories of several runs a side"), std::string::npos) << "the hint for CI gates";
  EXPECT_NE(text.find("Only in BASE (not compared):\n  transformer/cpu/fp32"), std::string::npos) << text;
  EXPECT_NE(text.find("Only in NEW (not compared):\n  cnn/cuda/fp32"), std::string::npos) << text;
  EXPECT_NE(text.find(
                "cnn/cpu/amp-bf16: BASE has no per-step samples (samples.step_ms); NEW status failed: CUDA out of memory"), std::string::npos) << text;
  EXPECT_NE(text.find("threads differs: BASE 2, NEW 4"), std::string::npos) << text;
  EXPECT_NE(text.find("mlp/cpu/few: too few samples"), std::string::npos) << text;
  EXPECT_NE(text.find("Result: 1 regression, 1 improvement, 2 unchanged (4 compared)"), std::string::npos) << text;
}

// An 80-column terminal: the counts, the noise, the p-value and the interval give way; every
// line fits and each config keeps its change and verdict.
TEST(FormatCompareTable, FitsTheColumnsItIsGiven) {
  const std::string wide = format_compare(sample_result(), "table");
  const std::string text = format_compare(sample_result(), "table", 80);
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) EXPECT_LE(line.size(), 80u) << line << "\n" << text;
  EXPECT_TRUE(std::regex_search(line_of(text, "mlp/cpu/fp32"), std::regex(R"(-\d+\.\d% .*REGRESSION$)"))) << text;
  EXPECT_TRUE(std::regex_search(line_of(text, "cnn/cpu/fp32"), std::regex(R"(no change$)"))) << text;
  EXPECT_EQ(line_of(text, "mlp/cpu/fp32").find("cv "), std::string::npos) << "the noise went first: " << text;
  EXPECT_NE(text.find("(hidden at 80 columns: n base/new"), std::string::npos) << text;
  EXPECT_NE(text.find("Result: 1 regression, 1 improvement, 2 unchanged (4 compared)"), std::string::npos) << text;
  EXPECT_NE(line_of(wide, "mlp/cpu/fp32").find("cv "), std::string::npos) << "unbounded, nothing hidden: " << wide;
}

TEST(FormatCompareMarkdown, GithubTableWithVerdicts) {
  const std::string text = format_compare(sample_result(), "markdown");
  EXPECT_EQ(text.rfind("### gpubench compare: regression found\n", 0), 0u) << text;
  EXPECT_NE(
      text.find("| config | n base/new | BASE median (p10-p90, cv) | NEW median (p10-p90, cv) | change | 99% CI | "
                "p-value | verdict |\n|---|"),
      std::string::npos)
      << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\n\| `mlp/cpu/fp32` \| 40/40 \|.*\| \*\*REGRESSION\*\* \|\n)")))
      << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\n\| `mlp/cpu/amp-bf16` \|.*\| \*\*improvement\*\* \|\n)")))
      << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\n\| `cnn/cpu/fp32` \|.*\| no change \|\n)"))) << text;
  EXPECT_NE(text.find("- `transformer/cpu/fp32`"), std::string::npos) << text;
  EXPECT_NE(text.find("- threads differs: BASE 2, NEW 4"), std::string::npos) << text;
  EXPECT_NE(text.find("**Result:** 1 regression, 1 improvement, 2 unchanged (4 compared)"), std::string::npos) << text;
}

TEST(FormatCompareMarkdown, NoRegressionTitle) {
  const json base = testing::report({ok_result("mlp/cpu/fp32", step_times(1, 40, 10.0))});
  const CompareResult r = compare_reports(base, "a.json", base, "a.json", CompareOptions{});
  EXPECT_EQ(format_compare(r, "markdown").rfind("### gpubench compare: no regression\n", 0), 0u);
}

TEST(FormatCompareJson, IsTheResultJson) {
  const CompareResult r = sample_result();
  const json parsed = json::parse(format_compare(r, "json"));
  EXPECT_EQ(parsed, r.json);
  EXPECT_EQ(parsed["configs"][0]["verdict"], "regression");
  EXPECT_EQ(parsed["configs"][3]["decision"], "threshold_only");
  EXPECT_EQ(parsed["warnings"][0], "threads differs: BASE 2, NEW 4");
}

TEST(FormatCompareTable, MemoryMetricSaysSingleValue) {
  json base = testing::report({ok_result("mlp/cpu/fp32", {10.0})});
  json next = base;
  next["results"][0]["memory"]["host_peak_rss_bytes"] = 600000000;
  CompareOptions options;
  options.metric = "host_peak_rss_bytes";
  const std::string text = format_compare(compare_reports(base, "a", next, "b", options), "table");
  EXPECT_NE(text.find("476.8 MiB"), std::string::npos) << text;
  EXPECT_NE(text.find("REGRESSION (single value)"), std::string::npos) << text;
  EXPECT_NE(text.find("no statistical test"), std::string::npos) << text;
}

TEST(FormatCompare, UnknownFormat) { EXPECT_THROW(format_compare(sample_result(), "html"), UsageError); }

}  // namespace
}  // namespace gpubench
