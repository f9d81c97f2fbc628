#include "reports/ablation.h"

#include <gtest/gtest.h>

#include <map>

namespace gpubench {
namespace {

nlohmann::json row(const std::string& id, double rate, double rss, double relative_ci = 0.02, int measured_steps = 20) {
  nlohmann::json r = {{"config_id", id}, {"config", {{"workload", id.substr(0, id.find('/'))}}}, {"status", "ok"}};
  r["throughput"]["samples_per_s"] = {{"median", rate}};
  r["memory"]["host_peak_rss_bytes"] = rss;
  r["stopping"]["median_ci95_relative"] = relative_ci;
  r["steps"]["measured"] = measured_steps;
  r["loss"] = {{"curve", {2.3, 2.0, 1.8}}};
  return r;
}

nlohmann::json matrix_with_recipes() {
  return {{"recipes",
           {{{"workload", "cnn"}, {"device", "cpu"}, {"name", "recipe"}, {"config_id", "cnn/cpu/fp32/adam-fused/channels-last"},
             {"baseline", "cnn/cpu/fp32"}, {"parts", {"adam-fused", "channels-last"}}},
            {{"workload", "cnn"}, {"device", "cpu"}, {"name", "ddp recipe"},
             {"config_id", "cnn/cpu/fp32/ddp-2/adam-fused/channels-last"}, {"baseline", "cnn/cpu/fp32"}}}}};
}

TEST(Ablation, EachPartAloneAndInTheStackWithItsNoise) {
  const nlohmann::json results = {row("cnn/cpu/fp32", 100, 1000),
                                  row("cnn/cpu/fp32/adam-fused/channels-last", 150, 900),
                                  row("cnn/cpu/fp32/channels-last", 140, 900),
                                  row("cnn/cpu/fp32/adam-fused", 104, 1000),
                                  row("cnn/cpu/fp32/ddp-2/adam-fused/channels-last", 240, 1800)};
  const auto ablations = compute_ablations(matrix_with_recipes(), results);
  std::map<std::string, nlohmann::json> by;
  for (const auto& a : ablations) by[a.value("technique", "") + "/" + a.value("position", "") + a.value("kind", "")] = a;
  ASSERT_EQ(ablations.size(), 6u) << ablations.dump(1);  // recipe, 2 parts x 2 positions, scaling
  EXPECT_DOUBLE_EQ(by["recipe/recipeablation"]["speedup"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(by["channels-last/aloneablation"]["speedup"].get<double>(), 1.4);
  EXPECT_EQ(by["channels-last/in_stackablation"]["baseline"], "cnn/cpu/fp32/adam-fused");
  EXPECT_DOUBLE_EQ(by["channels-last/in_stackablation"]["speedup"].get<double>(), 150.0 / 104);
  EXPECT_DOUBLE_EQ(by["adam-fused/aloneablation"]["speedup"].get<double>(), 1.04);
  EXPECT_DOUBLE_EQ(by["adam-fused/in_stackablation"]["memory_ratio"].get<double>(), 1.0);
  // The noise: 2% either side of each median.
  const auto ci = by["adam-fused/aloneablation"]["speedup_ci95"];
  EXPECT_NEAR(ci[0].get<double>(), 1.04 * 0.98 / 1.02, 1e-12);
  EXPECT_NEAR(ci[1].get<double>(), 1.04 * 1.02 / 0.98, 1e-12);
  const auto& scaling = by["/scaling_efficiency"];
  EXPECT_EQ(scaling["ranks"], 2);
  EXPECT_DOUBLE_EQ(scaling["efficiency"].get<double>(), 0.8);
}

// One measured step (it outlasted the budget) has no spread: no interval, not a point.
TEST(Ablation, ARowOfOneStepGivesNoIntervalAndTheBlockSaysTheSpreadIsUnknown) {
  const nlohmann::json results = {row("cnn/cpu/fp32", 100, 1000, 0.0, 1),
                                  row("cnn/cpu/fp32/adam-fused/channels-last", 150, 900),
                                  row("cnn/cpu/fp32/channels-last", 140, 900), row("cnn/cpu/fp32/adam-fused", 104, 1000)};
  const auto ablations = compute_ablations(matrix_with_recipes(), results);
  for (const auto& a : ablations) {
    const bool uses_plain = a["baseline"] == "cnn/cpu/fp32";
    EXPECT_EQ(a.contains("speedup_ci95"), !uses_plain) << a.dump();
  }
  const std::string text = format_ablation_blocks(nlohmann::json{{"comparisons", ablations}});
  EXPECT_NE(text.find("recipe cnn/cpu/fp32/adam-fused/channels-last: 1.50x [spread unknown]"), std::string::npos) << text;
  EXPECT_NE(text.find("1.07x [1.03-1.12]"), std::string::npos) << "the in-stack intervals, from rows of 20 steps: " << text;
}

TEST(Ablation, NoRecipeRowNoAblationEvenWhenItsPartsRan) {
  const nlohmann::json results = {row("cnn/cpu/fp32", 100, 1000), row("cnn/cpu/fp32/channels-last", 140, 900),
                                  row("cnn/cpu/fp32/adam-fused", 104, 1000)};
  EXPECT_EQ(compute_ablations(matrix_with_recipes(), results), nlohmann::json::array());
}

TEST(Ablation, RowsThatDidNotRunGiveNoComparisonAndTheBlockSaysSo) {
  nlohmann::json results = {row("cnn/cpu/fp32/adam-fused/channels-last", 150, 900), row("cnn/cpu/fp32/channels-last", 140, 900)};
  results.push_back({{"config_id", "cnn/cpu/fp32"}, {"status", "failed"}, {"reason", "x"}});
  const auto ablations = compute_ablations(matrix_with_recipes(), results);
  ASSERT_EQ(ablations.size(), 1u) << "only adam-fused in the stack: the plain row failed";
  nlohmann::json report = {{"comparisons", ablations}};
  const std::string text = format_ablation_blocks(report);
  EXPECT_NE(text.find("recipe cnn/cpu/fp32/adam-fused/channels-last (its plain row did not run)"), std::string::npos) << text;
  EXPECT_NE(text.find("adam-fused  -"), std::string::npos) << text;
  EXPECT_EQ(format_ablation_blocks(nlohmann::json{{"comparisons", nlohmann::json::array()}}), "");
  // A report's recipes from another grammar are left alone.
  const nlohmann::json odd = {{"recipes", {{{"config_id", "what/ever"}, {"baseline", "x"}, {"name", "recipe"}}}}};
  EXPECT_TRUE(compute_ablations(odd, results).empty());
}

TEST(Ablation, TheBlockShowsWhatEachPartBuys) {
  const nlohmann::json results = {row("cnn/cpu/fp32", 100, 1000), row("cnn/cpu/fp32/adam-fused/channels-last", 150, 900),
                                  row("cnn/cpu/fp32/channels-last", 140, 900), row("cnn/cpu/fp32/adam-fused", 104, 1000)};
  nlohmann::json report = {{"comparisons", compute_ablations(matrix_with_recipes(), results)}};
  const std::string text = format_ablation_blocks(report);
  EXPECT_NE(text.find("what each part of the recipe buys: cnn on cpu"), std::string::npos) << text;
  EXPECT_NE(text.find("recipe cnn/cpu/fp32/adam-fused/channels-last: 1.50x ["), std::string::npos) << text;
  EXPECT_NE(text.find("channels-last  1.40x ["), std::string::npos) << text;
}

}  // namespace
}  // namespace gpubench
