// Several runs a side: how a config's runs are gathered, reduced and compared
// (reports/compare/config_runs.*, compare_report_sets, compare_runs).
#include "reports/compare/config_runs.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/config/errors.h"
#include "reports/compare/compare_format.h"
#include "reports/compare/compare_reports.h"
#include "report_fixtures.h"

namespace gpubench {
namespace {

using testing::expect_usage_error;
using testing::failed_result;
using testing::ok_result;
using testing::step_times;

// `count` runs of mlp and cnn at `mean_ms`, each run scaled by its own lognormal factor
// (sd `run_sd` in log units): how whole runs drift on a shared machine.
ReportSet runs_of(const std::string& name, std::uint32_t seed, std::size_t count, double mean_ms, double run_sd) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> drift(0, run_sd);
  ReportSet set;
  set.name = name;
  for (std::size_t i = 0; i < count; ++i) {
    const double level = mean_ms * std::exp(drift(rng));
    set.runs.push_back(testing::report({ok_result("mlp/cpu/fp32", step_times(seed * 100 + i, 40, level)),
                                        ok_result("cnn/cpu/fp32", step_times(seed * 100 + 50 + i, 40, level))}));
    set.run_names.push_back(name + "/run-0" + std::to_string(i + 1) + ".json");
  }
  return set;
}


// Sets host_peak_rss_bytes of config `index` in run i of `set` to bytes(i).
template <typename Bytes>
void set_peak_rss(ReportSet& set, std::size_t index, Bytes bytes) {
  for (std::size_t i = 0; i < set.runs.size(); ++i)
    set.runs[i]["results"][index]["memory"]["host_peak_rss_bytes"] = bytes(static_cast<double>(i));
}

// Compares host peak RSS across the runs.
CompareResult compare_peak_rss(const ReportSet& base, const ReportSet& next) {
  CompareOptions options;
  options.metric = "host_peak_rss_bytes";
  return compare_report_sets(base, next, options);
}

TEST(CompareRuns, RunDriftThatFoolsThePerStepTestIsNoChangeAcrossRuns) {
  // A/A with 10% run-to-run drift: one report a side sees a "significant" 10%+ change
  // more often than not; five runs a side see the drift for what it is.
  int per_step_regressions = 0, run_level_regressions = 0;
  for (std::uint32_t trial = 0; trial < 40; ++trial) {
    const ReportSet base = runs_of("base", 2 * trial + 1, 5, 10, 0.10);
    const ReportSet next = runs_of("new", 2 * trial + 2, 5, 10, 0.10);
    const CompareResult single = compare_reports(base.runs[0], "a.json", next.runs[0], "b.json", CompareOptions{});
    per_step_regressions += static_cast<int>(single.regressions);
    const CompareResult runs = compare_report_sets(base, next, CompareOptions{});
    run_level_regressions += static_cast<int>(runs.regressions);
    ASSERT_EQ(runs.configs.size(), 2u);
    EXPECT_EQ(runs.configs[0].basis, DecisionBasis::run_t_test);
    EXPECT_EQ(runs.configs[0].base.count, 5u) << "one value per run";
  }
  EXPECT_GT(per_step_regressions, 10) << "out of 80 config comparisons";
  EXPECT_LE(run_level_regressions, 2) << "alpha 0.01 over 80 comparisons; regressions are half the alarms";
}

TEST(CompareRuns, PairedRunsSeeATenPercentSlowdownUnderTwentyPercentDrift) {
  // Interleaved runs share the machine's state: pair i drifts by the same factor on both sides.
  std::mt19937 rng(3);
  std::normal_distribution<double> drift(0, 0.2);
  ReportSet base{"base", {}, {}, {}}, next{"new", {}, {}, {}};
  for (int i = 0; i < 5; ++i) {
    const double level = 10 * std::exp(drift(rng));
    base.runs.push_back(testing::report({ok_result("mlp/cpu/fp32", step_times(10 + i, 40, level))}));
    next.runs.push_back(testing::report({ok_result("mlp/cpu/fp32", step_times(20 + i, 40, level * 1.1))}));
    base.run_names.push_back("base/run-" + std::to_string(i) + ".json");
    next.run_names.push_back("new/run-" + std::to_string(i) + ".json");
  }
  CompareOptions options;
  options.paired = true;
  const CompareResult paired = compare_report_sets(base, next, options);
  ASSERT_EQ(paired.configs.size(), 1u);
  EXPECT_EQ(paired.configs[0].basis, DecisionBasis::paired_run_t_test);
  EXPECT_EQ(paired.configs[0].verdict, Verdict::regression) << paired.configs[0].reason;
  EXPECT_TRUE(paired.regression);
  options.paired = false;
  const CompareResult unpaired = compare_report_sets(base, next, options);
  EXPECT_EQ(unpaired.configs[0].verdict, Verdict::no_change) << "the drift hides it without pairing";
}

TEST(CompareRuns, ARunWithAFailedConfigIsLeftOutWithAWarning) {
  ReportSet base = runs_of("base", 1, 4, 10, 0.02), next = runs_of("new", 2, 4, 10, 0.02);
  next.runs[2]["results"][0] = failed_result("mlp/cpu/fp32", "failed", "worker crashed");
  const CompareResult r = compare_report_sets(base, next, CompareOptions{});
  ASSERT_EQ(r.configs.size(), 2u);
  EXPECT_EQ(r.configs[0].next.count, 3u);
  bool warned = false;
  for (const std::string& w : r.warnings)
    warned = warned || w.find("mlp/cpu/fp32: compared on 4 of 4 BASE runs and 3 of 4 NEW runs, left out: NEW run "
                              "'new/run-03.json': status failed: worker crashed") != std::string::npos;
  EXPECT_TRUE(warned) << r.json.dump(2);

  // Paired: run 3's pair goes too, on both sides.
  CompareOptions paired;
  paired.paired = true;
  const CompareResult p = compare_report_sets(base, next, paired);
  EXPECT_EQ(p.configs[0].base.count, 3u);
  EXPECT_EQ(p.configs[0].next.count, 3u);
  bool pair_named = false;
  for (const std::string& w : p.warnings)
    pair_named = pair_named || w.find("BASE run 'base/run-03.json': its pair lacks values; NEW run "
                                      "'new/run-03.json': status failed: worker crashed") != std::string::npos;
  EXPECT_TRUE(pair_named) << p.json.dump(2);
}

TEST(CompareRuns, PairsMustCarryTheSameNames) {
  ReportSet base = runs_of("base", 1, 3, 10, 0.02), next = runs_of("new", 2, 3, 10, 0.02);
  next.run_names[1] = "new/run-07.json";
  CompareOptions paired;
  paired.paired = true;
  expect_usage_error([&] { compare_report_sets(base, next, paired); },
                     "--paired pairs runs by name order, and BASE run 2 is 'base/run-02.json' while NEW run 2 is "
                     "'new/run-07.json'");
  EXPECT_NO_THROW(compare_report_sets(base, next, CompareOptions{})) << "unpaired runs need no names in common";
}

TEST(CompareRuns, IdenticalRunsOnEachSideAreDecidedWithoutNoise) {
  // Peak memory is often the same number in every run: no spread, so any difference is
  // certain, and equal sides are no change.
  ReportSet base = runs_of("base", 1, 3, 10, 0.02), next = runs_of("new", 2, 3, 10, 0.02);
  set_peak_rss(base, 0, [](double) { return 500e6; });
  set_peak_rss(next, 0, [](double) { return 600e6; });
  set_peak_rss(base, 1, [](double) { return 500e6; });
  set_peak_rss(next, 1, [](double) { return 500e6; });
  const CompareResult r = compare_peak_rss(base, next);
  ASSERT_EQ(r.configs.size(), 2u);
  EXPECT_EQ(r.configs[0].verdict, Verdict::regression) << r.configs[0].reason;
  EXPECT_NEAR(r.configs[0].shift->estimate, 0.2, 1e-12);
  EXPECT_EQ(r.configs[1].verdict, Verdict::no_change) << r.configs[1].reason;
  EXPECT_EQ(*r.configs[1].p_value, 1);
}

TEST(CompareRuns, FewerThanTwoRunsWithValuesIsNotCompared) {
  ReportSet base = runs_of("base", 1, 2, 10, 0.02), next = runs_of("new", 2, 2, 10, 0.02);
  base.runs[1]["results"][1] = failed_result("cnn/cpu/fp32", "skipped", "no CUDA device");
  const CompareResult r = compare_report_sets(base, next, CompareOptions{});
  ASSERT_EQ(r.not_compared.size(), 1u);
  EXPECT_EQ(r.not_compared[0].config_id, "cnn/cpu/fp32");
  EXPECT_NE(r.not_compared[0].reason.find("1 of 2 BASE runs and 2 of 2 NEW runs have values, at least 2 a side are "
                                          "needed: BASE run 'base/run-02.json': status skipped: no CUDA device"),
            std::string::npos)
      << r.not_compared[0].reason;
}

TEST(CompareRuns, RunCountsMustFitTheTest) {
  const ReportSet one = runs_of("one", 1, 1, 10, 0.02), three = runs_of("three", 2, 3, 10, 0.02),
                  four = runs_of("four", 3, 4, 10, 0.02);
  expect_usage_error([&] { compare_report_sets(one, three, CompareOptions{}); },
                     "BASE has 1 run and NEW 3: compare one report a side, or at least 2 runs a side");
  CompareOptions paired;
  paired.paired = true;
  expect_usage_error([&] { compare_report_sets(three, four, paired); },
                     "--paired needs as many NEW runs as BASE runs (run i of each ran back to back): BASE has 3, "
                     "NEW has 4");
  expect_usage_error([&] { compare_report_sets(one, one, paired); }, "--paired needs several runs a side");
}

TEST(CompareRuns, MalformedRunIsNamed) {
  ReportSet base = runs_of("base", 1, 3, 10, 0.02);
  const ReportSet next = runs_of("new", 2, 3, 10, 0.02);
  base.runs[1]["schema_version"] = 7;
  expect_usage_error([&] { compare_report_sets(base, next, CompareOptions{}); },
                     "BASE report 'base/run-02.json' has schema_version 7");
}

TEST(CompareRuns, RunsFromDifferentBuildsAreAWarning) {
  ReportSet next = runs_of("new", 2, 3, 10, 0.02);
  next.runs[2]["tool"]["git_commit"] = "def456";
  const CompareResult r = compare_report_sets(runs_of("base", 1, 3, 10, 0.02), next, CompareOptions{});
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings.back().find("the 3 NEW runs come from 2 different builds (0.1.0 commit abc123, 0.1.0 commit "
                                   "def456)"),
            std::string::npos)
      << r.warnings.back();
}

TEST(CompareRuns, RunsOfOneSideFromDifferentMachinesAreAWarning) {
  ReportSet base = runs_of("base", 1, 3, 10, 0.02);
  base.runs[2]["env"]["threads"] = 8;
  const CompareResult r = compare_report_sets(base, runs_of("new", 2, 3, 10, 0.02), CompareOptions{});
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "threads differs: BASE run 'base/run-01.json' 2, BASE run 'base/run-03.json' 8");
}

TEST(CompareRuns, OutputSaysRunsAndTheRunLevelRule) {
  CompareOptions options;
  options.paired = true;
  const CompareResult r = compare_report_sets(runs_of("base", 1, 3, 10, 0.02), runs_of("new", 2, 3, 10, 0.02), options);
  EXPECT_EQ(r.json["base"]["runs"], 3);
  EXPECT_EQ(r.json["paired"], true);
  EXPECT_EQ(r.json["configs"][0]["decision"], "paired_run_t_test");
  EXPECT_EQ(r.json["configs"][0]["base"]["count"], 3);
  const std::string table = format_compare(r, "table");
  EXPECT_NE(table.find("BASE base (3 runs; gpubench 0.1.0, commit abc123)"), std::string::npos) << table;
  EXPECT_NE(table.find("runs base/new"), std::string::npos) << table;
  EXPECT_NE(table.find("3/3"), std::string::npos) << table;
  EXPECT_NE(table.find("a paired (run i of BASE with run i of NEW) t-test on the log run values"), std::string::npos)
      << table;
  const std::string markdown = format_compare(r, "markdown");
  EXPECT_NE(markdown.find("| runs base/new |"), std::string::npos) << markdown;
  // The change shown is the one the test estimates (so it lies inside its interval).
  const std::string change = fmt::format("{:+.1f}%", r.configs[0].shift->estimate * 100);
  EXPECT_NE(markdown.find("| " + change + " |"), std::string::npos) << change << "\n" << markdown;
}

TEST(CompareRuns, MemoryAcrossRunsUsesTheTestAndZeroFallsBackToTheRatio) {
  ReportSet base = runs_of("base", 1, 3, 10, 0.02), next = runs_of("new", 2, 3, 10, 0.02);
  set_peak_rss(base, 0, [](double i) { return 500e6 + 1e6 * i; });
  set_peak_rss(next, 0, [](double i) { return 800e6 + 1e6 * i; });
  set_peak_rss(base, 1, [](double) { return 0.0; });
  set_peak_rss(next, 1, [](double) { return 0.0; });
  const CompareResult r = compare_peak_rss(base, next);
  ASSERT_EQ(r.configs.size(), 2u);
  EXPECT_EQ(r.configs[0].basis, DecisionBasis::run_t_test);
  EXPECT_EQ(r.configs[0].verdict, Verdict::regression) << r.configs[0].reason;
  EXPECT_EQ(r.configs[1].basis, DecisionBasis::single_value);
  EXPECT_EQ(r.configs[1].verdict, Verdict::no_change);
}

TEST(ConfigRuns, CollectsEachRunsValuesAndWhyOthersHaveNone) {
  ReportSet set = runs_of("s", 1, 3, 10, 0.02);
  set.runs[1]["results"].erase(1);
  set.runs[2]["results"][1] = failed_result("cnn/cpu/fp32", "failed", "OOM");
  const ConfigRuns runs = collect_config_runs(set, "cnn/cpu/fp32", find_compare_metric("step_ms"));
  EXPECT_TRUE(runs.present);
  ASSERT_EQ(runs.values.size(), 3u);
  EXPECT_EQ(runs.values[0].size(), 40u);
  EXPECT_TRUE(runs.values[1].empty());
  EXPECT_EQ(runs.missing[1], "is not in this run");
  EXPECT_EQ(runs.missing[2], "status failed: OOM");
  EXPECT_EQ(runs.first_result, &set.runs[0]["results"][1]);
  EXPECT_FALSE(collect_config_runs(set, "transformer/cpu/fp32", find_compare_metric("step_ms")).present);
  EXPECT_EQ(config_ids(set), (std::vector<std::string>{"mlp/cpu/fp32", "cnn/cpu/fp32"}));
}

}  // namespace
}  // namespace gpubench
