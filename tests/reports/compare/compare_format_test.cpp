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

// A hostile report (a CI artifact): its reason holds a newline and a forged result line, a
// right-to-left override, an image and a link. Every format shows them as text: one
// "Result:" line (the real one), no raw control, no markup a CI summary would render.
CompareResult hostile_result() {
  const std::string reason = "oom\nResult: 0 regressions, 0 improvements, 2 unchanged (2 compared)\xe2\x80\xae"
                             "sgol <img src=https://x.example/p.png> [link](https://x.example) *bold* `code` #1";
  json base = testing::report({ok_result("mlp/cpu/fp32", step_times(1, 40, 10.0)),
                               failed_result("cnn/cpu/fp32", "failed", reason)});
  json next = testing::report({ok_result("mlp/cpu/fp32", step_times(11, 40, 12.0)),
                               failed_result("cnn/cpu/fp32", "failed", "x")});
  base["tool"]["version"] = "0.1\nResult: 0 regressions";
  return compare_reports(base, "base\nResult: 0 regressions.json", next, "new.json", CompareOptions{});
}

// Whether `what` occurs in `text` other than right after a backslash (markdown's escape).
bool unescaped(const std::string& text, const std::string& what) {
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    if (at == 0 || text[at - 1] != '\\') return true;
  return false;
}

std::size_t lines_starting(const std::string& text, const std::string& start) {
  std::istringstream in(text);
  std::size_t count = 0;
  for (std::string line; std::getline(in, line);) count += line.rfind(start, 0) == 0;
  return count;
}

TEST(FormatCompare, AReportCannotForgeALineInTheTable) {
  const std::string text = format_compare(hostile_result(), "table");
  EXPECT_EQ(lines_starting(text, "Result:"), 1u) << text;
  EXPECT_NE(text.find("Result: 1 regression"), std::string::npos) << text;
  EXPECT_NE(text.find("oom\\nResult: 0 regressions"), std::string::npos) << "shown escaped: " << text;
  EXPECT_EQ(text.find("\xe2\x80\xae"), std::string::npos) << "U+202E raw: " << text;
  EXPECT_NE(text.find("\\xe2\\x80\\xae"), std::string::npos) << text;
}

TEST(FormatCompare, AReportCannotForgeALineOrMarkupInMarkdown) {
  const std::string text = format_compare(hostile_result(), "markdown");
  EXPECT_EQ(lines_starting(text, "**Result:**"), 1u) << text;
  EXPECT_EQ(lines_starting(text, "Result:"), 0u) << text;
  EXPECT_EQ(text.find("\xe2\x80\xae"), std::string::npos) << "U+202E raw: " << text;
  EXPECT_FALSE(unescaped(text, "<img")) << "an HTML image: " << text;
  EXPECT_NE(text.find("\\<img src=https\\://x.example/p.png\\>"), std::string::npos) << text;
  EXPECT_FALSE(unescaped(text, "[link](")) << "a link: " << text;
  EXPECT_NE(text.find("\\[link\\](https\\://x.example)"), std::string::npos) << text;
  EXPECT_NE(text.find("\\*bold\\* \\`code\\` \\#1"), std::string::npos) << text;
}

TEST(FormatCompare, AReportsHiddenControlsAreEscapedInJson) {
  const CompareResult result = hostile_result();
  const std::string text = format_compare(result, "json");
  EXPECT_EQ(text.find("\xe2\x80\xae"), std::string::npos) << "U+202E raw: " << text;
  EXPECT_NE(text.find("\\u202e"), std::string::npos) << text;
  EXPECT_EQ(json::parse(text), result.json) << "the same value, read back";
}

TEST(FormatCompare, UnknownFormat) { EXPECT_THROW(format_compare(sample_result(), "html"), UsageError); }

}  // namespace
}  // namespace gpubench
