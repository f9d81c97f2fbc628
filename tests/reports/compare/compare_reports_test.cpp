#include "reports/compare/compare_reports.h"

#include <gtest/gtest.h>

#include "core/config/errors.h"
#include "report_fixtures.h"
#include "reports/compare/compare_format.h"

namespace gpubench {
namespace {

using nlohmann::json;
using testing::expect_usage_error;
using testing::failed_result;
using testing::ok_result;
using testing::step_times;

const ConfigComparison* find(const CompareResult& r, const std::string& id) {
  for (const ConfigComparison& c : r.configs)
    if (c.config_id == id) return &c;
  return nullptr;
}

// BASE: three configs at 10 ms; NEW: one 10% slower, one unchanged, one 10% faster.
struct Pair {
  json base = testing::report({ok_result("mlp/cpu/fp32", step_times(1, 40, 10.0)),
                               ok_result("cnn/cpu/fp32", step_times(2, 40, 10.0)),
                               ok_result("mlp/cpu/amp-bf16", step_times(3, 40, 10.0))});
  json next = testing::report({ok_result("mlp/cpu/fp32", step_times(4, 40, 11.0)),
                               ok_result("cnn/cpu/fp32", step_times(5, 40, 10.0)),
                               ok_result("mlp/cpu/amp-bf16", step_times(6, 40, 9.0))});
};

TEST(CompareReports, FindsRegressionImprovementAndNoChange) {
  const Pair p;
  const CompareResult r = compare_reports(p.base, "base.json", p.next, "new.json", CompareOptions{});
  ASSERT_EQ(r.configs.size(), 3u);
  EXPECT_EQ(find(r, "mlp/cpu/fp32")->verdict, Verdict::regression);
  EXPECT_EQ(find(r, "cnn/cpu/fp32")->verdict, Verdict::no_change);
  EXPECT_EQ(find(r, "mlp/cpu/amp-bf16")->verdict, Verdict::improvement);
  EXPECT_TRUE(r.regression);
  EXPECT_EQ(r.regressions, 1u);
  EXPECT_EQ(r.improvements, 1u);
  EXPECT_TRUE(r.warnings.empty());
  // samples/s from global_batch_size * 1000 / step_ms: ~25600 at 10 ms.
  EXPECT_NEAR(find(r, "cnn/cpu/fp32")->base.median, 25600, 25600 * 0.03);
  EXPECT_NEAR(*find(r, "mlp/cpu/fp32")->median_change, 10.0 / 11.0 - 1, 0.02);
}

TEST(CompareReports, StepTimeMetricHasTheSameVerdicts) {
  const Pair p;
  CompareOptions options;
  options.metric = "step_ms";
  const CompareResult r = compare_reports(p.base, "base.json", p.next, "new.json", options);
  EXPECT_EQ(find(r, "mlp/cpu/fp32")->verdict, Verdict::regression);
  EXPECT_NEAR(*find(r, "mlp/cpu/fp32")->median_change, 0.10, 0.02);
  EXPECT_EQ(find(r, "mlp/cpu/amp-bf16")->verdict, Verdict::improvement);
  EXPECT_NEAR(find(r, "cnn/cpu/fp32")->base.median, 10.0, 0.3);
}

// Model FLOP/s follows the FLOPs per step as well as the step time: a run whose model
// grew (more FLOPs per step) in the same step time is an improvement, not no change.
TEST(CompareReports, TflopsMetricUsesEachRunsFlopsPerStep) {
  Pair p;
  for (auto* report : {&p.base, &p.next})
    for (auto& row : (*report)["results"]) row["flops"] = {{"training_per_step", 2e12}};
  p.next["results"][1]["flops"]["training_per_step"] = 2.4e12;  // cnn: same 10 ms, 20% more work
  CompareOptions options;
  options.metric = "tflops_per_s";
  const CompareResult r = compare_reports(p.base, "base.json", p.next, "new.json", options);
  EXPECT_EQ(find(r, "mlp/cpu/fp32")->verdict, Verdict::regression);
  EXPECT_EQ(find(r, "cnn/cpu/fp32")->verdict, Verdict::improvement);
  EXPECT_NEAR(find(r, "cnn/cpu/fp32")->base.median, 200.0, 200 * 0.03) << "2 TFLOP a step every 10 ms";
  p.base["results"][0].erase("flops");
  const CompareResult without = compare_reports(p.base, "base.json", p.next, "new.json", options);
  EXPECT_EQ(find(without, "mlp/cpu/fp32"), nullptr) << "a run without FLOPs is not compared on them";
}

TEST(CompareReports, IdenticalReportsHaveNoRegression) {
  const Pair p;
  const CompareResult r = compare_reports(p.base, "a.json", p.base, "a.json", CompareOptions{});
  EXPECT_FALSE(r.regression);
  for (const ConfigComparison& c : r.configs) {
    EXPECT_EQ(c.verdict, Verdict::no_change);
    EXPECT_DOUBLE_EQ(*c.p_value, 1.0);
  }
}

TEST(CompareReports, ListsConfigsOnOneSideAndConfigsNotOk) {
  Pair p;
  p.base["results"].push_back(ok_result("transformer/cpu/fp32", step_times(7, 40, 20.0)));
  p.next["results"].push_back(ok_result("cnn/cuda/fp32", step_times(8, 40, 2.0)));
  p.base["results"].push_back(ok_result("cnn/cpu/amp-bf16", step_times(9, 40, 8.0)));
  p.next["results"].push_back(failed_result("cnn/cpu/amp-bf16", "failed", "NaN loss at step 3"));
  p.base["results"].push_back(failed_result("mlp/cuda/fp32", "skipped", "no CUDA device"));
  p.next["results"].push_back(failed_result("mlp/cuda/fp32", "skipped", "no CUDA device"));
  json empty = ok_result("mlp/cpu/fp16", {});
  p.base["results"].push_back(empty);
  p.next["results"].push_back(empty);

  const CompareResult r = compare_reports(p.base, "base.json", p.next, "new.json", CompareOptions{});
  EXPECT_EQ(r.configs.size(), 3u);
  EXPECT_EQ(r.only_in_base, std::vector<std::string>{"transformer/cpu/fp32"});
  EXPECT_EQ(r.only_in_next, std::vector<std::string>{"cnn/cuda/fp32"});
  ASSERT_EQ(r.not_compared.size(), 3u);
  EXPECT_EQ(r.not_compared[0].config_id, "cnn/cpu/amp-bf16");
  EXPECT_EQ(r.not_compared[0].reason, "NEW status failed: NaN loss at step 3");
  EXPECT_EQ(r.not_compared[1].reason, "BASE status skipped: no CUDA device; NEW status skipped: no CUDA device");
  EXPECT_NE(r.not_compared[2].reason.find("samples.step_ms is empty"), std::string::npos);
  EXPECT_EQ(r.json["only_in_base"], json::array({"transformer/cpu/fp32"}));
  EXPECT_EQ(r.json["only_in_new"], json::array({"cnn/cuda/fp32"}));
  EXPECT_EQ(r.json["summary"]["not_compared"], 3);
}

TEST(CompareReports, WarnsAboutDifferentEnvironments) {
  Pair p;
  p.next["env"]["threads"] = 4;
  p.next["env"]["torch_version"] = "2.11.0";
  p.next["env"]["cuda"]["devices"] = json::array({{{"name", "NVIDIA H200"}, {"memory_bytes", 150000000000}}});
  p.next["matrix"]["preset"] = "full";
  p.next["results"][1]["workload"]["global_batch_size"] = 512;
  const CompareResult r = compare_reports(p.base, "base.json", p.next, "new.json", CompareOptions{});
  const auto has = [&](const std::string& text) {
    for (const std::string& w : r.warnings)
      if (w == text) return true;
    return false;
  };
  EXPECT_TRUE(has("threads differs: BASE 2, NEW 4"));
  EXPECT_TRUE(has("torch_version differs: BASE 1.13.0, NEW 2.11.0"));
  EXPECT_TRUE(has("GPU differs: BASE none, NEW NVIDIA H200"));
  EXPECT_TRUE(has("matrix preset differs: BASE quick, NEW full"));
  EXPECT_TRUE(has("cnn/cpu/fp32: workload.global_batch_size differs: BASE 256, NEW 512"));
  EXPECT_EQ(r.warnings.size(), 5u);
}

TEST(CompareReports, WarnsWhenEnvIsMissing) {
  Pair p;
  p.base.erase("env");
  const CompareResult r = compare_reports(p.base, "base.json", p.next, "new.json", CompareOptions{});
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("BASE has no env record"), std::string::npos);
}

TEST(CompareReports, MemoryMetricComparesTheRatio) {
  Pair p;
  p.next["results"][0]["memory"]["host_peak_rss_bytes"] = 600000000;  // +20%
  p.next["results"][1]["memory"].erase("host_peak_rss_bytes");
  CompareOptions options;
  options.metric = "host_peak_rss_bytes";
  const CompareResult r = compare_reports(p.base, "base.json", p.next, "new.json", options);
  ASSERT_EQ(r.configs.size(), 2u);
  EXPECT_EQ(r.configs[0].verdict, Verdict::regression);
  EXPECT_EQ(r.configs[0].basis, DecisionBasis::single_value);
  EXPECT_EQ(r.configs[1].verdict, Verdict::no_change);
  ASSERT_EQ(r.not_compared.size(), 1u);
  EXPECT_EQ(r.not_compared[0].reason, "NEW has no memory.host_peak_rss_bytes");
}

TEST(CompareReports, JsonHasPerConfigVerdictsAndNoise) {
  const Pair p;
  const CompareResult r = compare_reports(p.base, "base.json", p.next, "new.json", CompareOptions{});
  const json& j = r.json;
  EXPECT_EQ(j["metric"]["name"], "samples_per_s");
  EXPECT_EQ(j["metric"]["higher_is_better"], true);
  EXPECT_DOUBLE_EQ(j["threshold"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(j["alpha"].get<double>(), 0.01);
  EXPECT_EQ(j["base"]["path"], "base.json");
  EXPECT_EQ(j["new"]["git_commit"], "abc123");
  ASSERT_EQ(j["configs"].size(), 3u);
  const json& c = j["configs"][0];
  EXPECT_EQ(c["config_id"], "mlp/cpu/fp32");
  EXPECT_EQ(c["verdict"], "regression");
  EXPECT_EQ(c["decision"], "u_test");
  EXPECT_LT(c["p_value"].get<double>(), 0.01);
  EXPECT_LT(c["median_change"].get<double>(), -0.05);
  EXPECT_EQ(c["shift_ci"].size(), 2u);
  for (const char* side : {"base", "new"}) {
    EXPECT_EQ(c[side]["count"], 40);
    EXPECT_GT(c[side]["cv"].get<double>(), 0.0);
    EXPECT_LT(c[side]["p10"].get<double>(), c[side]["p90"].get<double>());
  }
  EXPECT_EQ(j["summary"]["regressions"], 1);
  EXPECT_EQ(j["summary"]["improvements"], 1);
  EXPECT_EQ(j["summary"]["unchanged"], 1);
  EXPECT_EQ(j["regression"], true);
}

// ---- bad input ----

// A row measured while other processes took the CPU (its interference probe's verdict).
json disturbed(json row) {
  row["interference"] = {{"disturbed", true},
                         {"other_cpu_share", 0.45},
                         {"warning", "other processes took 45% of the CPU during the steps"}};
  return row;
}

TEST(CompareDisturbed, ARegressionMeasuredOnADisturbedSideIsMarkedAndCountsByDefault) {
  Pair p;
  p.next["results"][0] = disturbed(p.next["results"][0]);
  const CompareResult r = compare_reports(p.base, "base.json", p.next, "new.json", CompareOptions{});
  const ConfigComparison* slower = find(r, "mlp/cpu/fp32");
  ASSERT_EQ(slower->verdict, Verdict::regression);
  ASSERT_EQ(slower->disturbed.size(), 1u);
  EXPECT_EQ(slower->disturbed[0], "NEW: other processes took 45% of the CPU during the steps");
  EXPECT_TRUE(find(r, "cnn/cpu/fp32")->disturbed.empty());
  EXPECT_TRUE(r.regression);
  EXPECT_FALSE(r.retry);
  EXPECT_EQ(r.disturbed_regressions, 1u);
  EXPECT_EQ(r.uncounted_regressions, 0u);
  EXPECT_EQ(r.json["configs"][0]["disturbed"][0], slower->disturbed[0]);
  EXPECT_EQ(r.json["summary"]["disturbed_regressions"], 1);
  EXPECT_EQ(r.json["on_disturbed"], "count");
  const std::string table = format_compare(r, "table", 200);
  EXPECT_NE(table.find("REGRESSION (disturbed)"), std::string::npos) << table;
  EXPECT_NE(table.find("Measured on a disturbed machine"), std::string::npos) << table;
  EXPECT_NE(table.find("1 of the regressions measured on a disturbed machine (counted"), std::string::npos) << table;
}

TEST(CompareDisturbed, IgnoreLeavesItOutAndRetryAsksForAnotherRunUnlessACleanConfigRegressed) {
  Pair p;
  p.base["results"][0] = disturbed(p.base["results"][0]);
  CompareOptions options;
  options.on_disturbed = CompareOptions::OnDisturbed::ignore;
  const CompareResult ignored = compare_reports(p.base, "base.json", p.next, "new.json", options);
  EXPECT_EQ(find(ignored, "mlp/cpu/fp32")->disturbed[0].rfind("BASE: ", 0), 0u);
  EXPECT_FALSE(ignored.regression);
  EXPECT_FALSE(ignored.retry);
  EXPECT_EQ(ignored.uncounted_regressions, 1u);
  options.on_disturbed = CompareOptions::OnDisturbed::retry;
  const CompareResult retried = compare_reports(p.base, "base.json", p.next, "new.json", options);
  EXPECT_FALSE(retried.regression);
  EXPECT_TRUE(retried.retry);
  EXPECT_EQ(retried.json["retry"], true);
  // A quiet config that regressed too decides: a regression, no retry.
  p.next["results"][1] = ok_result("cnn/cpu/fp32", step_times(7, 40, 11.5));
  const CompareResult both = compare_reports(p.base, "base.json", p.next, "new.json", options);
  EXPECT_EQ(both.regressions, 2u);
  EXPECT_TRUE(both.regression);
  EXPECT_FALSE(both.retry);
}

// A report is anyone's file: "disturbed" without its warning still reads as disturbed.
TEST(CompareDisturbed, ADisturbedRowWithoutItsWarningIsNamedAsDisturbed) {
  Pair p;
  p.next["results"][0]["interference"] = {{"disturbed", true}};
  const CompareResult r = compare_reports(p.base, "base.json", p.next, "new.json", CompareOptions{});
  ASSERT_EQ(find(r, "mlp/cpu/fp32")->disturbed.size(), 1u);
  EXPECT_EQ(find(r, "mlp/cpu/fp32")->disturbed[0], "NEW: the machine was disturbed");
}

TEST(CompareDisturbed, AnUnknownPolicyIsAUsageErrorNamingTheFlag) {
  EXPECT_EQ(parse_on_disturbed("retry"), CompareOptions::OnDisturbed::retry);
  expect_usage_error([] { parse_on_disturbed("sometimes"); }, "--on-disturbed 'sometimes' is unknown: expected count, ignore or retry");
}

TEST(CompareReportsErrors, NoCommonOkConfigs) {
  const json base =
      testing::report({ok_result("mlp/cpu/fp32", {10, 11}), failed_result("cnn/cpu/fp32", "failed", "OOM")});
  const json next = testing::report({ok_result("cnn/cpu/fp32", {10, 11}), ok_result("transformer/cpu/fp32", {10})});
  expect_usage_error([&] { compare_reports(base, "a.json", next, "b.json", CompareOptions{}); },
                     "nothing to compare: no config is \"ok\" with samples_per_s values in both BASE report 'a.json' "
                     "(2 results) and NEW report 'b.json' (2 results); cnn/cpu/fp32: BASE status failed: OOM");
}

TEST(CompareReportsErrors, EmptyResults) {
  const json empty = testing::report({});
  expect_usage_error([&] { compare_reports(empty, "a.json", empty, "b.json", CompareOptions{}); },
                     "nothing to compare");
}

TEST(CompareReportsErrors, UnknownMetric) {
  const Pair p;
  CompareOptions options;
  options.metric = "tokens_per_s";
  expect_usage_error([&] { compare_reports(p.base, "a", p.next, "b", options); },
                     "unknown --metric 'tokens_per_s': expected one of samples_per_s, step_ms, tflops_per_s, "
                     "host_peak_rss_bytes, "
                     "cuda_peak_allocated_bytes, cuda_peak_reserved_bytes");
}

TEST(CompareReportsErrors, ThresholdOutOfRange) {
  const Pair p;
  CompareOptions options;
  options.threshold = -0.1;
  expect_usage_error([&] { compare_reports(p.base, "a", p.next, "b", options); }, "threshold -0.1 is out of range");
  options.threshold = 1.0;
  expect_usage_error([&] { compare_reports(p.base, "a", p.next, "b", options); }, "threshold 1 is out of range");
}

TEST(CompareReportsErrors, MalformedReportNamesTheSide) {
  const Pair p;
  json bad = p.next;
  bad["results"][0]["samples"]["step_ms"][0] = nullptr;
  expect_usage_error([&] { compare_reports(p.base, "a.json", bad, "b.json", CompareOptions{}); },
                     "NEW report 'b.json': results[0] (mlp/cpu/fp32): samples.step_ms[0] is null");
  json no_version = p.base;
  no_version.erase("schema_version");
  expect_usage_error([&] { compare_reports(no_version, "a.json", p.next, "b.json", CompareOptions{}); },
                     "BASE report 'a.json' lacks \"schema_version\"");
}

// ---- --threshold ----

TEST(ParseThreshold, AcceptsPercentagesAndFractions) {
  EXPECT_DOUBLE_EQ(parse_threshold("5%"), 0.05);
  EXPECT_DOUBLE_EQ(parse_threshold("2.5%"), 0.025);
  EXPECT_DOUBLE_EQ(parse_threshold("0.05"), 0.05);
  EXPECT_DOUBLE_EQ(parse_threshold("0"), 0.0);
  EXPECT_DOUBLE_EQ(parse_threshold("0%"), 0.0);
  EXPECT_DOUBLE_EQ(parse_threshold("99.9%"), 0.999);
}

TEST(ParseThreshold, RejectsBadValues) {
  expect_usage_error([] { parse_threshold("-5%"); }, "--threshold '-5%' is negative");
  expect_usage_error([] { parse_threshold("-0.05"); }, "is negative");
  expect_usage_error([] { parse_threshold("100%"); }, "--threshold '100%' is 100% or more");
  expect_usage_error([] { parse_threshold("5"); }, "(did you mean 5%?)");
  expect_usage_error([] { parse_threshold("five"); }, "--threshold 'five' is not a number");
  expect_usage_error([] { parse_threshold(""); }, "is not a number");
  expect_usage_error([] { parse_threshold("%"); }, "is not a number");
  expect_usage_error([] { parse_threshold("5%%"); }, "is not a number");
  expect_usage_error([] { parse_threshold("5 %"); }, "is not a number");
  expect_usage_error([] { parse_threshold(" 5%"); }, "is not a number");
  expect_usage_error([] { parse_threshold("nan"); }, "is not a number");
  expect_usage_error([] { parse_threshold("inf%"); }, "is not a number");
}

}  // namespace
}  // namespace gpubench
