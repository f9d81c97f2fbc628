// `gpubench report --bencher` and `--github-benchmark`: the files checked against the
// formats' field names (schemas in this folder, from Bencher's published BMF schema and
// github-action-benchmark's BenchmarkResult type), values and bounds from the report.
#include "reports/export/benchmark_exports.h"

#include <gtest/gtest.h>

#include "core/config/errors.h"
#include "reports/compare/report_loader.h"
#include "reports/html/synthetic_reports.h"
#include "support/schema_validation.h"

namespace gpubench {
namespace {

using nlohmann::json;

const std::string kHere = GPUBENCH_SOURCE_DIR "/tests/reports/export";
// Loaded in the tests, not at start-up: test discovery runs the binary, and a missing file
// must fail a test, not the build.
const json& quick() {
  static const json report = load_report(GPUBENCH_SOURCE_DIR "/reports/examples/cpu-quick.json");
  return report;
}

TEST(BencherMetricFormat, FitsTheFormatWithMediansAndP10P90Bounds) {
  const json& kQuick = quick();
  const json bmf = bencher_metric_format(kQuick, "cpu-quick.json");
  EXPECT_EQ(test_support::schema_violations(bmf, kHere + "/bmf.schema.json"), "");
  EXPECT_EQ(bmf.size(), 4u);                           // the ok rows
  EXPECT_FALSE(bmf.contains("mlp/cuda/fp32/pinned"));  // skipped: no numbers
  const json& rate = kQuick["results"][0]["throughput"]["samples_per_s"];
  const json& mlp = bmf["mlp/cpu/fp32"];
  EXPECT_EQ(mlp["samples-per-s"],
            (json{{"value", rate["median"]}, {"lower_value", rate["p10"]}, {"upper_value", rate["p90"]}}));
  EXPECT_EQ(mlp["step-ms"]["value"], kQuick["results"][0]["step_ms"]["median"]);
  EXPECT_EQ(mlp["tflops-per-s"]["lower_value"], kQuick["results"][0]["throughput"]["tflops_per_s"]["p10"]);
  EXPECT_EQ(mlp["host-peak-rss-bytes"], (json{{"value", kQuick["results"][0]["memory"]["host_peak_rss_bytes"]}}));
}

TEST(GithubBenchmark, FitsCustomBiggerIsBetterWithTheRangeFromP10P90) {
  const json& kQuick = quick();
  const json entries = github_benchmark_bigger_is_better(kQuick, "cpu-quick.json");
  EXPECT_EQ(test_support::schema_violations(entries, kHere + "/github_benchmark.schema.json"), "");
  ASSERT_EQ(entries.size(), 4u);
  const json& rate = kQuick["results"][0]["throughput"]["samples_per_s"];
  EXPECT_EQ(entries[0]["name"], "mlp/cpu/fp32 samples/s");
  EXPECT_EQ(entries[0]["unit"], "samples/s");
  EXPECT_EQ(entries[0]["value"], rate["median"]);
  const double half = std::max(rate["median"].get<double>() - rate["p10"].get<double>(),
                               rate["p90"].get<double>() - rate["median"].get<double>());
  EXPECT_NEAR(std::stod(entries[0]["range"].get<std::string>().substr(3)), half, half * 1e-5);  // after "± "
  EXPECT_NE(entries[0]["extra"].get<std::string>().find("p10 9617.64, p90 12327.4"), std::string::npos);
}

// customSmallerIsBetter: the step time with its range, the memory peaks in MiB.
TEST(GithubBenchmark, SmallerIsBetterHoldsStepTimesAndMemoryPeaks) {
  const json& kQuick = quick();
  const json entries = github_benchmark_smaller_is_better(kQuick, "cpu-quick.json");
  EXPECT_EQ(test_support::schema_violations(entries, kHere + "/github_benchmark.schema.json"), "");
  ASSERT_EQ(entries.size(), 8u) << "4 CPU rows: step time and host peak RSS each";
  const json& row = kQuick["results"][0];
  EXPECT_EQ(entries[0]["name"], "mlp/cpu/fp32 step time");
  EXPECT_EQ(entries[0]["unit"], "ms");
  EXPECT_EQ(entries[0]["value"], row["step_ms"]["median"]);
  EXPECT_EQ(entries[0]["range"].get<std::string>().rfind("± ", 0), 0u);
  EXPECT_EQ(entries[1]["name"], "mlp/cpu/fp32 host peak RSS");
  EXPECT_DOUBLE_EQ(entries[1]["value"].get<double>(), row["memory"]["host_peak_rss_bytes"].get<double>() / 1048576.0);
  json gpu = kQuick;
  gpu["results"][0]["memory"]["cuda_peak_allocated_bytes"] = 3.0 * 1048576;
  const json with_gpu = github_benchmark_smaller_is_better(gpu, "gpu.json");
  EXPECT_EQ(with_gpu[2]["name"], "mlp/cpu/fp32 CUDA peak allocated");
  EXPECT_EQ(with_gpu[2]["value"], 3.0);
  json none = kQuick;
  for (json& r : none["results"]) r["status"] = "skipped";
  EXPECT_THROW(github_benchmark_smaller_is_better(none, "none.json"), UsageError);
}

TEST(GithubBenchmark, AddsTokensPerSecondWhereMeasured) {
  json report = test_support::synthetic_report(test_support::SyntheticSpec{});
  report["results"][3]["throughput"]["tokens_per_s"] = {{"median", 5e4}, {"p10", 4.8e4}, {"p90", 5.2e4}, {"count", 30}};
  const json entries = github_benchmark_bigger_is_better(report, "r.json");
  EXPECT_EQ(test_support::schema_violations(entries, kHere + "/github_benchmark.schema.json"), "");
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_EQ(entries[4]["name"], "gpt2/cpu/fp32/acc1 tokens/s");
  EXPECT_EQ(entries[4]["range"], "± 2000");
  EXPECT_EQ(bencher_metric_format(report, "r.json")["gpt2/cpu/fp32/acc1"]["tokens-per-s"]["upper_value"], 5.2e4);
}

// The schemas have teeth: a misspelt field, a measure that is no slug, a range the action
// cannot parse are each refused.
TEST(BenchmarkExports, SchemasRefuseWrongFieldNames) {
  EXPECT_NE(test_support::schema_violations(json{{"b", {{"samples-per-s", {{"value", 1}, {"lower", 0}}}}}},
                                            kHere + "/bmf.schema.json"),
            "");
  EXPECT_NE(
      test_support::schema_violations(json{{"b", {{"samples_per_s", {{"value", 1}}}}}}, kHere + "/bmf.schema.json"),
      "");
  EXPECT_NE(test_support::schema_violations(json{{"b", {{"m", {{"lower_value", 1}}}}}}, kHere + "/bmf.schema.json"),
            "");
  const std::string github = kHere + "/github_benchmark.schema.json";
  EXPECT_NE(test_support::schema_violations(json::array({{{"name", "n"}, {"value", 1}}}), github), "");  // no unit
  EXPECT_NE(test_support::schema_violations(
                json::array({{{"name", "n"}, {"unit", "u"}, {"value", 1}, {"ranges", "± 1"}}}), github),
            "");
  EXPECT_NE(test_support::schema_violations(
                json::array({{{"name", "n"}, {"unit", "u"}, {"value", 1}, {"range", "p10 1"}}}), github),
            "");
}

TEST(BenchmarkExports, RefuseAReportWithNoOkRow) {
  json report = test_support::synthetic_report(test_support::SyntheticSpec{});
  for (json& row : report["results"]) row["status"] = "failed";
  EXPECT_THROW(bencher_metric_format(report, "r.json"), UsageError);
  EXPECT_THROW(github_benchmark_bigger_is_better(report, "r.json"), UsageError);
}

// A report with one config twice (not a tune search's): one name per benchmark.
TEST(BenchmarkExports, RefuseAReportWithAConfigTwice) {
  json report = quick();
  json twice = report["results"][0];
  twice["status"] = "ok";
  report["results"].push_back(twice);
  for (const auto& export_to : {bencher_metric_format, github_benchmark_bigger_is_better}) {
    try {
      export_to(report, "r.json");
      ADD_FAILURE() << "a report with " << twice["config_id"] << " twice was exported";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("has config " + twice["config_id"].get<std::string>() + " twice"),
                std::string::npos)
          << error.what();
    }
  }
}

// A tune search measures one stack at several batches and its finalists again: each row is
// a benchmark of its own, named with its batch and step (report_loader.h's result_key).
TEST(BenchmarkExports, ATuneSearchsRowsAreNamedByBatchAndStep) {
  json report = quick();
  json first = report["results"][0], second = first;
  first["tune"] = {{"phase", "greedy"}, {"round", 0}, {"batch_size", 64}};
  second["tune"] = {{"phase", "final"}, {"round", 1}, {"batch_size", 64}};
  report["results"] = json::array({first, second});
  const std::string id = first["config_id"];
  const json bmf = bencher_metric_format(report, "search.json");
  EXPECT_EQ(bmf.size(), 2u) << bmf.dump(1);
  EXPECT_TRUE(bmf.contains(id + " batch 64 (greedy 0)")) << bmf.dump(1);
  EXPECT_TRUE(bmf.contains(id + " batch 64 (final 1)")) << bmf.dump(1);
  const json github = github_benchmark_bigger_is_better(report, "search.json");
  ASSERT_GE(github.size(), 2u);
  EXPECT_EQ(github[0]["name"], id + " batch 64 (greedy 0) samples/s");
}

}  // namespace
}  // namespace gpubench
