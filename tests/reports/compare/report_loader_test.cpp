#include "reports/compare/report_loader.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <tuple>

#include "core/config/errors.h"
#include "report_fixtures.h"

namespace gpubench {
namespace {

using nlohmann::json;
using testing::TempFile;

// load_report must throw UsageError whose message names the role, the file and `what`.
void expect_load_error(const std::string& name, const std::string& text, const std::string& what) {
  const TempFile file(name, text);
  try {
    load_report(file.path(), "NEW");
    ADD_FAILURE() << "no error for " << name;
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("NEW report '" + file.path() + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << "expected '" << what << "' in: " << message;
  }
}

json good_report() { return testing::report({testing::ok_result("mlp/cpu/fp32", {10.0, 11.0, 12.0})}); }

TEST(LoadReport, ReadsAValidReport) {
  const TempFile file("good.json", good_report().dump());
  const json report = load_report(file.path(), "BASE");
  EXPECT_EQ(report["results"][0]["config_id"], "mlp/cpu/fp32");
}

TEST(LoadReport, MissingFile) {
  const std::string path = ::testing::TempDir() + "gpubench_compare_does_not_exist.json";
  try {
    load_report(path, "BASE");
    ADD_FAILURE() << "no error";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cannot read BASE report '" + path + "'"), std::string::npos) << message;
  }
}

TEST(LoadReport, NotJson) { expect_load_error("not_json.json", "gpubench ran fine\n", "is not valid JSON"); }

TEST(LoadReport, EmptyFile) { expect_load_error("empty.json", "", "is not valid JSON"); }

TEST(LoadReport, TruncatedJson) {
  const std::string text = good_report().dump();
  expect_load_error("truncated.json", text.substr(0, text.size() / 2), "is not valid JSON");
}

TEST(LoadReport, NotAnObject) {
  expect_load_error("array.json", "[1, 2, 3]", "the top level is an array, expected a JSON object");
}

TEST(LoadReport, MissingSchemaVersion) {
  json report = good_report();
  report.erase("schema_version");
  expect_load_error("no_schema.json", report.dump(), "lacks \"schema_version\" (expected 1)");
}

TEST(LoadReport, OtherSchemaVersion) {
  json report = good_report();
  report["schema_version"] = 2;
  expect_load_error("schema2.json", report.dump(), "has schema_version 2, expected 1");
  report["schema_version"] = "1";
  expect_load_error("schema_string.json", report.dump(), "has schema_version \"1\", expected 1");
}

TEST(LoadReport, MissingResults) {
  json report = good_report();
  report.erase("results");
  expect_load_error("no_results.json", report.dump(), "lacks \"results\"");
}

TEST(LoadReport, ResultsNotAnArray) {
  json report = good_report();
  report["results"] = {{"config_id", "x"}};
  expect_load_error("results_object.json", report.dump(), "\"results\" is an object, expected an array");
}

TEST(LoadReport, ResultNotAnObject) {
  json report = good_report();
  report["results"].push_back(42);
  expect_load_error("result_number.json", report.dump(), "results[1] is a number (42), expected an object");
}

TEST(LoadReport, ResultLacksConfigId) {
  json report = good_report();
  report["results"][0].erase("config_id");
  expect_load_error("no_id.json", report.dump(), "results[0] lacks \"config_id\"");
}

TEST(LoadReport, ResultLacksStatus) {
  json report = good_report();
  report["results"][0].erase("status");
  expect_load_error("no_status.json", report.dump(), "results[0] (mlp/cpu/fp32) lacks \"status\"");
}

TEST(LoadReport, DuplicateConfigId) {
  json report = good_report();
  report["results"].push_back(report["results"][0]);
  expect_load_error("duplicate.json", report.dump(), "results[1] (mlp/cpu/fp32): config_id appears twice");
}

// gpubench tune's report: one row per candidate measured, the same config at several
// batches and its finalists again. Each row is keyed by its batch and step; two rows of one
// step are still refused, and so is a "tune" that does not say its step.
TEST(LoadReport, ATuneSearchsRowsAreKeyedByBatchAndStep) {
  json report = good_report();
  json row = report["results"][0];
  report["results"] = json::array();
  for (const auto& [phase, round, batch] : {std::tuple{"greedy", 0, 64}, std::tuple{"batch", 1, 128}, std::tuple{"final", 1, 128}}) {
    row["tune"] = {{"phase", phase}, {"round", round}, {"batch_size", batch}};
    report["results"].push_back(row);
  }
  const TempFile file("tune.json", report.dump());
  const ReportSet set = load_report_set(file.path(), "BASE");
  EXPECT_EQ(set.result_index[0].count("mlp/cpu/fp32 batch 128 (final 1)"), 1u);
  EXPECT_EQ(result_key(set.runs[0]["results"][0]), "mlp/cpu/fp32 batch 64 (greedy 0)");
  EXPECT_EQ(result_key(good_report()["results"][0]), "mlp/cpu/fp32") << "a matrix row: its config id";

  json twice = report;
  twice["results"].push_back(twice["results"][2]);
  expect_load_error("tune_twice.json", twice.dump(), "results[3] (mlp/cpu/fp32): 'mlp/cpu/fp32 batch 128 (final 1)' appears twice");
  for (const json& bad : {json("final"), json{{"phase", "final"}, {"round", 1}}, json{{"phase", "x"}, {"round", 1}, {"batch_size", 2}},
                          json{{"phase", "final"}, {"round", -1}, {"batch_size", 2}}, json{{"phase", "final"}, {"round", 1}, {"batch_size", 0.5}}}) {
    json odd = report;
    odd["results"][0]["tune"] = bad;
    expect_load_error("tune_bad.json", odd.dump(), "results[0] (mlp/cpu/fp32) has \"tune\" ");
  }
}

// A report given alone (gpubench report R.json) is "report 'R.json'", not "report report".
TEST(LoadReport, AReportWithoutARoleIsNamedOnce) {
  try {
    load_report("/nonexistent/r.json");
    ADD_FAILURE() << "no error";
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()).find("report report"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("cannot read report '/nonexistent/r.json'"), std::string::npos) << error.what();
  }
}

TEST(LoadReport, SamplesNotNumbers) {
  json report = good_report();
  report["results"][0]["samples"]["step_ms"][1] = "11.0";
  expect_load_error("string_sample.json", report.dump(),
                    "samples.step_ms[1] is a string (\"11.0\"), expected a positive number of milliseconds");
}

TEST(LoadReport, SamplesNotPositive) {
  json report = good_report();
  report["results"][0]["samples"]["step_ms"][2] = -1.5;
  expect_load_error("negative_sample.json", report.dump(), "samples.step_ms[2] is a number (-1.5)");
}

// Denormal samples would make every statistic NaN (and compare call it a regression).
TEST(LoadReport, SamplesNotNormalNumbers) {
  json report = good_report();
  report["results"][0]["samples"]["step_ms"][0] = 1e-320;
  expect_load_error("denormal_sample.json", report.dump(), "samples.step_ms[0] is a number (1e-320)");
  // Normal but so small that samples/s overflows to inf.
  report["results"][0]["samples"]["step_ms"][0] = 2.3e-308;
  expect_load_error("tiny_sample.json", report.dump(), "at least 1e-06 (1 ns)");
}

// 1e400 is past double's range: nlohmann throws out_of_range, not parse_error.
TEST(LoadReport, NumbersOutOfRangeAreBadInput) {
  std::string text = good_report().dump();
  text.replace(text.find("10.0"), 4, "1e400");
  expect_load_error("huge.json", text, "is not valid JSON");
}

TEST(LoadReport, SamplesNotAnArray) {
  json report = good_report();
  report["results"][0]["samples"]["step_ms"] = 12.5;
  expect_load_error("scalar_samples.json", report.dump(), "samples.step_ms is a number (12.5), expected an array");
}

TEST(LoadReport, BadBatchSize) {
  json report = good_report();
  report["results"][0]["workload"]["global_batch_size"] = 0;
  expect_load_error("zero_batch.json", report.dump(), "workload.global_batch_size is a number (0)");
}

// compare divides the work of a step by its time: a batch of 1e308 samples made every rate
// infinite and the medians NaN, and compare called that a change (issue 61, item 11). So did
// FLOPs of -1 (a -100% change judged "no change") and "x" (a raw type error, exit 3).
TEST(LoadReport, WorkPerStepThatWouldMakeRatesNonFiniteIsBadInput) {
  json report = good_report();
  report["results"][0]["workload"]["global_batch_size"] = 1e308;
  expect_load_error("huge_batch.json", report.dump(),
                    "workload.global_batch_size is a number (1e+308), expected a positive number of samples, at most 1e12");
  for (const json& flops : {json(-1), json("x"), json(1e300)}) {
    report = good_report();
    report["results"][0]["flops"] = {{"training_per_step", flops}};
    expect_load_error("bad_flops.json", report.dump(),
                      "flops.training_per_step is " + std::string(flops.is_string() ? "a string" : "a number"));
  }
  report = good_report();
  report["results"][0]["flops"] = {{"training_per_step", nullptr}};
  const TempFile unmeasured("null_flops.json", report.dump());
  EXPECT_NO_THROW(load_report(unmeasured.path(), "NEW")) << "null: not measured, allowed";
}

TEST(LoadReport, BadMemoryValue) {
  json report = good_report();
  report["results"][0]["memory"]["host_peak_rss_bytes"] = "lots";
  expect_load_error("memory_string.json", report.dump(), "memory.host_peak_rss_bytes is a string (\"lots\")");
}

// A directory of runs: every *.json directly in it, in name order; nothing else.
TEST(LoadReportSet, ADirectoryIsItsJsonFilesInNameOrder) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "gpubench_report_set";
  fs::remove_all(dir);
  fs::create_directories(dir / "nested.json");
  for (const char* name : {"run-02.json", "run-01.json", "run-03.json"}) std::ofstream(dir / name) << good_report().dump();
  std::ofstream(dir / "summary.md") << "# not a report\n";
  const ReportSet set = load_report_set(dir.string(), "BASE");
  EXPECT_EQ(set.name, dir.string());
  ASSERT_EQ(set.runs.size(), 3u);
  EXPECT_EQ(set.run_names[0], (dir / "run-01.json").string());
  EXPECT_EQ(set.run_names[2], (dir / "run-03.json").string());

  std::ofstream(dir / "run-04.json") << "{";
  try {
    load_report_set(dir.string(), "BASE");
    ADD_FAILURE() << "a broken run must be an error";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("BASE report '" + (dir / "run-04.json").string() + "' is not valid JSON"),
              std::string::npos)
        << error.what();
  }
  fs::remove_all(dir);
}

// A FIFO named like a report would block compare forever: it is bad input instead.
TEST(LoadReportSet, AFifoInTheDirectoryIsRefusedNotWaitedOn) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "gpubench_report_set_fifo";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "run-01.json") << good_report().dump();
  ASSERT_EQ(::mkfifo((dir / "run-02.json").c_str(), 0600), 0);
  try {
    load_report_set(dir.string(), "BASE");
    ADD_FAILURE() << "the FIFO was accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("run-02.json': not a regular file"), std::string::npos) << error.what();
  }
  fs::remove_all(dir);
}

TEST(LoadReportSet, AFileIsOneRunAndAnEmptyDirectoryIsAnError) {
  const TempFile file("set_single.json", good_report().dump());
  const ReportSet single = load_report_set(file.path(), "NEW");
  EXPECT_EQ(single.runs.size(), 1u);
  EXPECT_EQ(single.run_names[0], file.path());

  namespace fs = std::filesystem;
  const fs::path empty = fs::path(::testing::TempDir()) / "gpubench_empty_set";
  fs::create_directories(empty);
  try {
    load_report_set(empty.string(), "NEW");
    ADD_FAILURE() << "an empty directory must be an error";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("NEW directory '" + empty.string() + "' holds no *.json reports"),
              std::string::npos)
        << error.what();
  }
  fs::remove_all(empty);
  EXPECT_THROW(load_report_set("/nonexistent-gpubench-dir/x.json", "NEW"), UsageError);
}

}  // namespace
}  // namespace gpubench
