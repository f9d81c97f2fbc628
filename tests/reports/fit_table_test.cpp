// Tables fitted to the terminal: the fitting rules on a small table, then real committed
// reports (a quick CPU matrix, an --overhead run) and an ablation printed at 80, 120 and 200
// columns, as `gpubench --format table` prints them.
#include "reports/fit_table.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "reports/ablation.h"
#include "reports/report_format.h"

namespace gpubench {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::size_t widest_line(const std::string& text) {
  std::size_t widest = 0;
  for (const std::string& line : lines_of(text)) widest = std::max(widest, display_width(line));
  return widest;
}

nlohmann::json read_report(const std::string& relative) {
  std::ifstream in(std::string(GPUBENCH_SOURCE_DIR) + "/" + relative);
  return nlohmann::json::parse(in);
}

std::vector<FitColumn> three_columns() {
  return {{"id", {"a/b/c", "d/e"}, "", {}},
          {"rate median [p10-p90]", {"100.0 [90.0-110.0]", "5.00 [4.00-6.00]"}, "rate", {"100.0", "5.00"}},
          {"detail", {"a long detail cell", "x"}, "", {}}};
}

TEST(FitTable, WideEnoughShowsEverythingInFull) {
  const std::string text = fit_table(three_columns(), {}, 200, {{"verdict: fine"}, {}});
  const auto lines = lines_of(text);
  ASSERT_EQ(lines.size(), 5u) << text;
  EXPECT_EQ(lines[0], "id     rate median [p10-p90]  detail");
  EXPECT_EQ(lines[1], std::string(lines[2].size(), '-')) << "the rule as wide as the widest row";
  EXPECT_EQ(lines[2], "a/b/c  100.0 [90.0-110.0]     a long detail cell");
  EXPECT_EQ(lines[3], "    verdict: fine") << "a note goes on its own indented line under its row";
  EXPECT_EQ(lines[4], "d/e    5.00 [4.00-6.00]       x");
}

TEST(FitTable, StepsApplyInOrderOnlyUntilItFits) {
  using A = FitStep::Action;
  const std::vector<FitStep> steps = {{2, A::Drop}, {1, A::Shorten}};
  // Without "detail" the table is 5 + 2 + 21 = 28 wide: the second step is not needed.
  const std::string dropped = fit_table(three_columns(), steps, 30);
  EXPECT_EQ(lines_of(dropped)[0], "id     rate median [p10-p90]");
  EXPECT_NE(dropped.find("(hidden at 30 columns: detail;"), std::string::npos) << dropped;
  const std::string shortened = fit_table(three_columns(), steps, 20);
  EXPECT_EQ(lines_of(shortened)[0], "id     rate");
  EXPECT_EQ(lines_of(shortened)[2], "a/b/c  100.0");
  EXPECT_LE(widest_line(shortened), 20u) << shortened;
}

TEST(FitTable, AFreeTextColumnMovesUnderItsRowLosingNothing) {
  const std::vector<FitColumn> columns = {{"id", {"a", "b"}, "", {}},
                                          {"why", {"a reason far too long to sit in a column of this table", "-"}, "", {}}};
  const std::string text = fit_table(columns, {{1, FitStep::Action::ToNotes}}, 30, {{"verdict"}, {}});
  EXPECT_EQ(text, "id\n--\na\n    why: a reason far too long\n    to sit in a column of this\n    table\n    verdict\nb\n")
      << text;
}

TEST(FitTable, ColumnsNoStepDropsOverflowRatherThanBeCut) {
  const std::vector<FitColumn> ids = {{"config", {"resnet50/cuda/bf16/pinned/ddp-2/acc4/adam-fused/channels-last/ckpt"}, "", {}}};
  const std::string text = fit_table(ids, {}, 40, {{"a verdict long enough that it must wrap onto a second line here"}});
  const auto lines = lines_of(text);
  EXPECT_EQ(lines[1], std::string(40, '-')) << "the rule stays within the width";
  EXPECT_EQ(lines[2], "resnet50/cuda/bf16/pinned/ddp-2/acc4/adam-fused/channels-last/ckpt");
  EXPECT_EQ(lines[3], "    a verdict long enough that it must");
  EXPECT_EQ(lines[4], "    wrap onto a second line here");
}

TEST(FitTable, WidthCountsCharactersNotBytesAndCellsStayOnOneLine) {
  EXPECT_EQ(display_width("a · b"), 5u);
  EXPECT_EQ(display_width("猫/犬"), 5u) << "CJK: two columns each";
  EXPECT_EQ(display_width("e\u0301t\u00e9"), 3u) << "a combining accent takes none";
  EXPECT_EQ(display_width("ok \U0001F600"), 5u) << "an emoji takes two";
  // Wide characters keep the next column aligned.
  const std::string aligned = fit_table({{"class", {"猫猫", "abcd"}, "", {}}, {"n", {"1", "2"}, "", {}}}, {}, 80);
  EXPECT_NE(aligned.find("猫猫   1\nabcd   2\n"), std::string::npos) << aligned;
  const std::vector<FitColumn> columns = {{"x", {"two\nlines", "\x1b[2J"}, "", {}}};
  const std::string text = fit_table(columns, {}, 80);
  EXPECT_NE(text.find("two lines"), std::string::npos) << text;
  EXPECT_NE(text.find("\\x1b[2J"), std::string::npos) << "control bytes shown, not obeyed: " << text;
  EXPECT_EQ(wrap_text("one two three", 9, "  "), "  one two\n  three\n");
  EXPECT_EQ(wrap_text("unbreakable-word-longer-than-width", 10), "unbreakable-word-longer-than-width\n");
}

// The committed quick CPU matrix (four configs ran, one skipped; comparisons) at three widths.
TEST(ReportTable, TheQuickCpuMatrixFitsEightyOneHundredTwentyAndTwoHundredColumns) {
  const auto report = read_report("reports/examples/cpu-quick.json");
  for (const std::size_t width : {80u, 120u, 200u}) {
    const std::string text = format_report(report, "table", width);
    EXPECT_LE(widest_line(text), width) << "at " << width << ":\n" << text;
    // Every config still has its row, with its id first.
    for (const auto& row : report["results"]) {
      const std::string id = row["config_id"];
      bool found = false;
      for (const std::string& line : lines_of(text)) found |= line.rfind(id + " ", 0) == 0;
      EXPECT_TRUE(found) << id << " at " << width << ":\n" << text;
    }
    // Verdicts and reasons only on their own indented lines, never appended to a row.
    for (const std::string& line : lines_of(text)) {
      if (line.find("-bound") != std::string::npos || line.find("no CUDA device") != std::string::npos) {
        EXPECT_EQ(line.rfind("    ", 0), 0u) << "at " << width << ": " << line;
      }
    }
  }
  const std::string narrow = format_report(report, "table", 80);
  EXPECT_NE(narrow.find("samples/s"), std::string::npos);
  EXPECT_EQ(narrow.find("phase shares  "), std::string::npos) << narrow;
  EXPECT_NE(narrow.find("(hidden at 80 columns: phase shares"), std::string::npos) << narrow;
  const std::string wide = format_report(report, "table", 200);
  for (const char* header : {"samples/s median [p10-p90]", "step ms", "model TFLOP/s, MFU", "peak memory", "loss first -> last",
                             "phase shares", "candidate vs baseline", "memory ratio"})
    EXPECT_NE(wide.find(header), std::string::npos) << header << ":\n" << wide;
  EXPECT_EQ(wide.find("hidden at"), std::string::npos) << wide;
}

TEST(ReportTable, AnOverheadRunFitsEightyColumnsKeepingTheJudgement) {
  const auto report = read_report("reports/examples/overhead-cpu/mlp-cpu-fp32-full.json");
  for (const std::size_t width : {80u, 120u, 200u}) {
    const std::string text = format_report(report, "table", width);
    EXPECT_LE(widest_line(text), width) << "at " << width << ":\n" << text;
    EXPECT_NE(text.find("harness overhead (--overhead)"), std::string::npos);
    EXPECT_NE(text.find("undetermined"), std::string::npos) << "at " << width << ":\n" << text;
    EXPECT_NE(text.find("CUPTI traces GPU activity"), std::string::npos) << "at " << width << ":\n" << text;
  }
}

TEST(ReportTable, AnAblationBlockFitsEightyColumns) {
  nlohmann::json comparison = {{"kind", "ablation"},       {"recipe", "cnn/cpu/fp32/adam-fused/channels-last"},
                               {"technique", "channels-last"}, {"position", "alone"},
                               {"speedup", 1.4},           {"speedup_ci95", {1.31, 1.49}},
                               {"memory_ratio", 0.9}};
  nlohmann::json in_stack = comparison, whole = comparison;
  in_stack["position"] = "in_stack";
  whole["position"] = "recipe";
  whole["workload"] = "cnn";
  whole["device"] = "cpu";
  whole["baseline"] = "cnn/cpu/fp32";
  const nlohmann::json report = {{"comparisons", {whole, comparison, in_stack}}};
  const std::string wide = format_ablation_blocks(report, 200);
  EXPECT_NE(wide.find("in the stack (recipe vs recipe - part)"), std::string::npos) << wide;
  EXPECT_NE(wide.find("1.40x [1.31-1.49] mem 0.90x"), std::string::npos) << wide;
  const std::string narrow = format_ablation_blocks(report, 60);
  EXPECT_LE(widest_line(narrow), 60u) << narrow;
  EXPECT_NE(narrow.find("channels-last  1.40x [1.31-1.49]"), std::string::npos) << narrow;
}

}  // namespace
}  // namespace gpubench
