#include "reports/overhead_rows.h"

#include <gtest/gtest.h>

#include "reports/report_format.h"

namespace gpubench {
namespace {

nlohmann::json report_with_overhead() {
  const nlohmann::json shift = {{"estimate", 0.004}, {"ci95", {-0.002, 0.009}}};
  nlohmann::json row = {{"config_id", "mlp/cpu/fp32"},
                        {"config", {{"workload", "mlp"}}},
                        {"status", "ok"},
                        {"reason", ""},
                        {"overhead",
                         {{"segment_steps", 5},
                          {"excluded_steps", 8},
                          {"confidence", 0.95},
                          {"cupti_note", "CUPTI traces GPU activity: not measured on a CPU config"},
                          {"levels",
                           {{{"name", "bare"}, {"steps", 16}, {"median_step_ms", 33.1}},
                            {{"name", "timers_nvtx"},
                             {"steps", 16},
                             {"median_step_ms", 33.25},
                             {"probe_cpu_us_per_step", 21.44},
                             {"probe_cpu_share_of_step", 0.000645},
                             {"vs", "bare"},
                             {"overhead", shift},
                             {"overhead_vs_bare", shift},
                             {"target", 0.01},
                             {"judgement", "within_target"}}}}}}};
  return {{"tool", {{"version", "t"}}}, {"matrix", {{"preset", "quick"}}}, {"results", {row}}};
}

TEST(OverheadRows, OneRowPerLevelWithTheIntervalTargetAndJudgement) {
  const auto rows = overhead_rows(report_with_overhead());
  ASSERT_EQ(rows.size(), 4u);  // header, bare, timers, cupti note
  EXPECT_EQ(rows[1], (std::vector<std::string>{"mlp/cpu/fp32", "bare", "33.100", "-", "-", "-", "-", "baseline"}));
  EXPECT_EQ(rows[2], (std::vector<std::string>{"mlp/cpu/fp32", "timers_nvtx", "33.250", "21.4 us (0.065%)",
                                               "+0.40% [-0.20%, +0.90%] vs bare", "+0.40% [-0.20%, +0.90%]", "<= 1%",
                                               "within_target"}));
  EXPECT_EQ(rows[3][1], "cupti");
  EXPECT_EQ(rows[3][7], "CUPTI traces GPU activity: not measured on a CPU config");
}

TEST(OverheadRows, ReportsWithoutOverheadGetNoSection) {
  nlohmann::json report = report_with_overhead();
  report["results"][0].erase("overhead");
  EXPECT_EQ(overhead_rows(report).size(), 1u);
  EXPECT_EQ(format_report_markdown(report).find("Harness overhead"), std::string::npos);
}

TEST(OverheadRows, MarkdownAndTableShowTheSection) {
  const auto report = report_with_overhead();
  const std::string markdown = format_report_markdown(report);
  EXPECT_NE(markdown.find("## Harness overhead (--overhead)"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| mlp/cpu/fp32 | timers_nvtx | 33.250 | 21.4 us (0.065%) |"), std::string::npos) << markdown;
  EXPECT_NE(format_report_table(report).find("harness overhead (--overhead)"), std::string::npos);
}

}  // namespace
}  // namespace gpubench
