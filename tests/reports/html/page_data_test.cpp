// What each page is given to draw: one report's rows, environment, comparisons and
// ablations; compare's own decisions per metric; a history in time order with compare's
// marks, read one report at a time.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <thread>

#include "core/config/errors.h"
#include "reports/compare/report_loader.h"
#include "reports/html/compare_page_data.h"
#include "reports/html/history_page_data.h"
#include "reports/html/report_header.h"
#include "reports/html/report_page_data.h"
#include "reports/html/synthetic_reports.h"
#include "support/run_command.h"

namespace gpubench {
namespace {

using nlohmann::json;
using test_support::synthetic_report;
using test_support::SyntheticSpec;

const std::string kExamples = GPUBENCH_SOURCE_DIR "/reports/examples";

std::string env_value(const json& rows, const std::string& label) {
  for (const json& row : rows)
    if (row[0] == label) return row[1];
  return "(absent)";
}

TEST(ReportPageData, CarriesEnvironmentRowsAndComparisons) {
  const json data = report_page_data(load_report(kExamples + "/cpu-quick.json"), "cpu-quick.json");
  EXPECT_EQ(data["kind"], "report");
  EXPECT_EQ(env_value(data["env"], "torch"), "2.11.0 (CUDA build)");
  EXPECT_EQ(env_value(data["env"], "CUDA (LibTorch built with)"), "13.0");
  EXPECT_EQ(env_value(data["env"], "cuDNN (LibTorch built with)"), "9.19.0");
  EXPECT_EQ(env_value(data["env"], "NCCL (LibTorch built with)"), "2.28.9");
  EXPECT_EQ(env_value(data["env"], "CPU"), "AMD EPYC, 2 cores, 2 threads");
  EXPECT_EQ(env_value(data["env"], "GPU").rfind("none: no CUDA device", 0), 0u);
  ASSERT_EQ(data["rows"].size(), 5u);
  EXPECT_EQ(data["counts"], (json{{"ok", 4}, {"skipped", 1}, {"failed", 0}}));
  const json& mlp = data["rows"][0];
  EXPECT_EQ(mlp["id"], "mlp/cpu/fp32");
  EXPECT_NEAR(mlp["samples_per_s"]["median"].get<double>(), 11228.1, 1);  // 5 significant digits
  EXPECT_EQ(mlp["cells"]["samples_per_s"], "11228 [9617.6-12327]");        // the console table's cell
  EXPECT_EQ(mlp["phase_source"], "host");
  EXPECT_EQ(mlp["phases"][0][0], "data");
  EXPECT_EQ(mlp["loss"]["values"].size(), 31u);
  EXPECT_EQ(data["rows"][4]["status"], "skipped");
  EXPECT_NE(data["rows"][4]["reason"].get<std::string>().find("CUDA"), std::string::npos);
  ASSERT_EQ(data["techniques"].size(), 2u);
  EXPECT_EQ(data["techniques"][0]["kind"], "bf16_vs_fp32");
  EXPECT_TRUE(data["ablations"].empty());
}

TEST(ReportPageData, GroupsAblationsPerRecipe) {
  json report = synthetic_report(SyntheticSpec{});
  const auto ablation = [](const char* technique, const char* position, double speedup) {
    return json{{"kind", "ablation"},
                {"workload", "mlp"},
                {"baseline", "mlp/cpu/fp32"},
                {"candidate", "x"},
                {"speedup", speedup},
                {"memory_metric", "host_peak_rss_bytes"},
                {"memory_ratio", 1.0},
                {"speedup_ci95", {speedup * 0.9, speedup * 1.1}},
                {"technique", technique},
                {"position", position},
                {"recipe", "mlp/cpu/fp32/adam-fused/channels-last"},
                {"device", "cpu"}};
  };
  report["comparisons"] = {ablation("recipe", "recipe", 1.3), ablation("adam-fused", "alone", 1.1),
                           ablation("adam-fused", "in_stack", 1.05), ablation("channels-last", "alone", 1.2)};
  const json data = report_page_data(report, "r.json");
  ASSERT_EQ(data["ablations"].size(), 1u);
  const json& group = data["ablations"][0];
  EXPECT_EQ(group["whole"]["speedup"], 1.3);
  ASSERT_EQ(group["parts"].size(), 2u);
  EXPECT_EQ(group["parts"][0]["part"], "adam-fused");
  EXPECT_EQ(group["parts"][0]["in_stack"]["speedup"], 1.05);
  EXPECT_TRUE(group["parts"][1]["in_stack"].is_null());
  EXPECT_TRUE(data["techniques"].empty());  // ablations have their own charts
}

TEST(ReportPageData, LeavesOutFieldsOfTheWrongTypeInsteadOfThrowing) {
  json report = synthetic_report(SyntheticSpec{});
  report["env"]["cores"] = "two";
  report["results"][0]["memory"]["host_peak_rss_bytes"] = "lots";
  report["results"][0]["loss"]["curve"] = {1.0, "nan", 0.5};
  const json data = report_page_data(report, "r.json");
  EXPECT_EQ(env_value(data["env"], "CPU"), "Synthetic CPU, 2 threads");
  EXPECT_TRUE(data["rows"][0]["memory"]["host_peak_rss_bytes"].is_null());
  EXPECT_EQ(data["rows"][0]["loss"]["values"], (json{1.0, nullptr, 0.5}));
  // The console cells of that row could not be made: the row says why, the page goes on.
  EXPECT_EQ(data["rows"][0]["cells"]["samples_per_s"], "?");
  EXPECT_NE(data["rows"][0]["warnings"].dump().find("unexpected type"), std::string::npos);
  EXPECT_NE(data["rows"][1]["cells"]["samples_per_s"], "?");
}

TEST(ComparePageData, IsWhatCompareDecidesForEveryMetric) {
  const std::string dir = kExamples + "/perf-check/ab-10-pairs-threads1-sleep5ms";
  CompareOptions options;
  options.paired = true;
  const ReportSet base = load_report_set(dir + "/base", "BASE"), next = load_report_set(dir + "/head", "NEW");
  const json data = compare_page_data(base, next, options);
  const CompareResult direct = compare_report_sets(base, next, options);
  EXPECT_EQ(data["kind"], "compare");
  EXPECT_TRUE(data["regression"]);
  ASSERT_GE(data["metrics"].size(), 3u);
  EXPECT_EQ(data["metrics"][0]["name"], "samples_per_s");
  EXPECT_EQ(data["metrics"][0]["result"], direct.json);  // compare's own result, unchanged
  const json& mlp = data["metrics"][0]["values"]["mlp/cpu/fp32"];
  EXPECT_EQ(mlp["base"].size(), 10u);  // one value per run: the run's median
  EXPECT_EQ(mlp["new_count"], 10);
  bool cuda_listed = false;
  for (const json& n : data["not_compared_metrics"])
    cuda_listed = cuda_listed || n["metric"] == "cuda_peak_allocated_bytes";
  EXPECT_TRUE(cuda_listed);
}

TEST(ComparePageData, DrawsAtMost200ValuesASideAndThrowsAsCompareDoes) {
  SyntheticSpec spec;
  spec.steps = 1000;
  const json a = synthetic_report(spec);
  spec.seed = 2;
  const json b = synthetic_report(spec);
  const json data = compare_page_data({"a", {"a"}, {a}, {}}, {"b", {"b"}, {b}, {}}, CompareOptions{});
  EXPECT_EQ(data["metrics"][0]["values"]["mlp/cpu/fp32/acc1"]["base"].size(), 200u);
  EXPECT_EQ(data["metrics"][0]["values"]["mlp/cpu/fp32/acc1"]["base_count"], 1000);
  json empty = a;
  empty["results"] = json::array();
  EXPECT_THROW(compare_page_data({"a", {"a"}, {a}, {}}, {"e", {"e"}, {empty}, {}}, CompareOptions{}), UsageError);
}

// The page draws the values compare tested: with --paired, a run whose pair failed is left
// out of both sides, as the paired test leaves it out.
TEST(ComparePageData, DrawsOnlyTheRunsComparePairs) {
  const auto runs = [](std::uint64_t seed, bool last_failed) {
    ReportSet set{"side" + std::to_string(seed), {}, {}, {}};
    for (int run = 0; run < 3; ++run) {
      SyntheticSpec spec;
      spec.seed = seed * 10 + static_cast<std::uint64_t>(run);
      json report = synthetic_report(spec);
      if (last_failed && run == 2) {
        json& row = report["results"][0];
        row = {{"config_id", row["config_id"]}, {"config", row["config"]}, {"status", "failed"}, {"reason", "crashed"}};
      }
      set.run_names.push_back("run-0" + std::to_string(run + 1) + ".json");
      set.runs.push_back(report);
    }
    return set;
  };
  const ReportSet base = runs(1, true), next = runs(2, false);
  const std::string id = base.runs[0]["results"][0]["config_id"];
  CompareOptions options;
  EXPECT_EQ(compare_page_data(base, next, options)["metrics"][0]["values"][id]["new_count"], 3);
  options.paired = true;
  const json paired = compare_page_data(base, next, options)["metrics"][0]["values"][id];
  EXPECT_EQ(paired["base_count"], 2);
  EXPECT_EQ(paired["new_count"], 2) << "run 3 of NEW has no pair";
}

class HistoryFolder : public ::testing::Test {
 protected:
  std::string dir = test_support::make_temp_dir("history");
  void TearDown() override { std::filesystem::remove_all(dir); }
  void write(const std::string& name, const json& report) { write_text(name, report.dump()); }
  void write_text(const std::string& name, const std::string& text) { std::ofstream(dir + "/" + name) << text; }
};

TEST_F(HistoryFolder, OrdersByCreatedTimeAndMarksWhatCompareCallsARegression) {
  // Names in the reverse of time order; config 1 is 30% slower from the 4th report on, and
  // config 2 fails in the 5th (a gap: the 6th is judged against the 4th).
  for (int i = 0; i < 6; ++i) {
    SyntheticSpec spec;
    spec.seed = i + 1;
    spec.created_utc = test_support::synthetic_time(i);
    spec.git_commit = "commit" + std::to_string(i);
    if (i >= 3) {
      spec.slowdown = 1.3;
      spec.slow_config = 1;
    }
    json report = synthetic_report(spec);
    if (i == 4) {
      report["results"][2]["status"] = "failed";
      report["results"][2]["reason"] = "oom";
    }
    write("run-" + std::to_string(9 - i) + ".json", report);
  }
  const json data = history_page_data(dir, CompareOptions{});
  ASSERT_EQ(data["reports"].size(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(data["reports"][i]["commit"], "commit" + std::to_string(i));
  const json& slow = data["configs"][1]["metrics"]["samples_per_s"];
  EXPECT_EQ(data["configs"][1]["id"], "cnn/cpu/fp32/acc1");
  ASSERT_EQ(slow["marks"].size(), 1u);
  EXPECT_EQ(slow["marks"][0]["report"], 3);
  EXPECT_EQ(slow["marks"][0]["against"], 2);
  EXPECT_EQ(slow["marks"][0]["verdict"], "regression");
  EXPECT_NEAR(slow["marks"][0]["change"].get<double>(), 1 / 1.3 - 1, 0.02);
  EXPECT_EQ(data["configs"][1]["metrics"]["step_ms"]["marks"][0]["verdict"], "regression");
  const json& gap = data["configs"][2]["metrics"]["samples_per_s"];
  EXPECT_TRUE(gap["median"][4].is_null());
  EXPECT_TRUE(gap["marks"].empty());
  EXPECT_FALSE(data["configs"][0]["metrics"]["host_peak_rss_bytes"].contains("p10"));  // one value a run
  EXPECT_TRUE(data["configs"][0]["metrics"]["samples_per_s"].contains("p10"));
}

TEST_F(HistoryFolder, NamesTheBadFileAndRefusesAnEmptyFolder) {
  EXPECT_THROW(history_page_data(dir, CompareOptions{}), UsageError);
  write("a.json", synthetic_report(SyntheticSpec{}));
  write("b.json", json{{"schema_version", 1}});
  try {
    history_page_data(dir, CompareOptions{});
    FAIL() << "expected a UsageError";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("b.json"), std::string::npos) << error.what();
  }
}

TEST_F(HistoryFolder, ScansCreatedTimeWithoutTheRestAndToleratesBadFiles) {
  write_text("a.json", R"({"command": "x", "created_utc": "2026-01-02T03:04:05Z", "results": [1, 2, )");  // cut short
  EXPECT_EQ(scan_created_utc(dir + "/a.json"), "2026-01-02T03:04:05Z");
  write_text("b.json", R"({"results": [{"created_utc": "nested"}], "created_utc": "2026-02-02T00:00:00Z"})");
  EXPECT_EQ(scan_created_utc(dir + "/b.json"), "2026-02-02T00:00:00Z");
  write_text("c.json", R"({"created_utc": 5})");
  EXPECT_EQ(scan_created_utc(dir + "/c.json"), "");
  EXPECT_EQ(scan_created_utc(dir + "/missing.json"), "");
}

// A FIFO in the folder, or a link to one, was opened to look for its date and waited on
// forever: now it is named by the load that follows, as not a regular file.
TEST_F(HistoryFolder, AFifoOrALinkToOneIsNamedNotWaitedOn) {
  write("a.json", synthetic_report(SyntheticSpec{}));
  ASSERT_EQ(::mkfifo((dir + "/pipe").c_str(), 0600), 0);
  for (const std::string name : {"f.json", "l.json"}) {
    SCOPED_TRACE(name);
    if (name == "f.json") ASSERT_EQ(::mkfifo((dir + "/f.json").c_str(), 0600), 0);
    else std::filesystem::create_symlink(dir + "/pipe", dir + "/l.json");
    auto outcome = std::make_shared<std::promise<std::string>>();
    std::future<std::string> said = outcome->get_future();
    std::thread([outcome, folder = dir] {
      try {
        history_page_data(folder, CompareOptions{});
        outcome->set_value("");
      } catch (const UsageError& error) {
        outcome->set_value(error.what());
      }
    }).detach();  // one blocked at the bound stays behind; the process exits over it
    ASSERT_EQ(said.wait_for(std::chrono::seconds(60)), std::future_status::ready) << "still waiting on " << name;
    const std::string why = said.get();
    EXPECT_NE(why.find(dir + "/" + name + "': not a regular file (a device, FIFO or socket)"), std::string::npos) << why;
    std::filesystem::remove(dir + "/" + name);
  }
}

}  // namespace
}  // namespace gpubench
