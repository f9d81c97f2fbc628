// The reports committed under reports/examples/ and reports/baselines/ are what users open
// first and what CI compares against: each must still fit the report schema and load in
// `gpubench compare` (ceilings files: load in `gpubench --ceilings`). A schema change that
// breaks them fails here, so they are regenerated with it, not discovered stale.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/ceilings/ceilings_file.h"
#include "reports/compare/compare_reports.h"
#include "reports/compare/report_loader.h"
#include "support/schema_validation.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> committed_json_files() {
  std::vector<fs::path> files;
  for (const char* folder : {"reports/examples", "reports/baselines"}) {
    const fs::path root = fs::path(GPUBENCH_SOURCE_DIR) / folder;
    if (!fs::exists(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      const std::string name = entry.path().filename().string();
      // Raw outputs kept beside reports are not reports: Google Benchmark's next to a
      // ceilings file, scripts/compare_with_python.py's rounds.
      if (entry.is_regular_file() && entry.path().extension() == ".json" &&
          name.find(".benchmark.json") == std::string::npos && name.find(".python-comparison.json") == std::string::npos)
        files.push_back(entry.path());
    }
  }
  return files;
}

TEST(CommittedReports, EveryReportFitsTheSchemaAndLoadsInCompare) {
  const auto files = committed_json_files();
  int reports = 0;
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    std::ifstream in(file);
    const nlohmann::json document = nlohmann::json::parse(in);
    if (document.value("format", "") == "gpubench-ceilings") {
      EXPECT_NO_THROW(load_ceilings(file.string()));
      continue;
    }
    ++reports;
    EXPECT_EQ(test_support::schema_violations(document, GPUBENCH_REPORT_SCHEMA), "");
    EXPECT_NO_THROW(load_report(file.string(), "committed"));
  }
  // The CI baseline and the example runs at least: an empty walk would pass vacuously.
  EXPECT_GE(reports, 3) << files.size() << " JSON files found";
}

// "2.11.0+cu130" -> "2.11".
std::string major_minor(const std::string& version) {
  const auto first = version.find('.');
  const auto second = first == std::string::npos ? first : version.find('.', first + 1);
  return version.substr(0, second);
}

// The README.md in `file`'s folder or a folder above it, up to reports/examples: where a
// record says what it was made with. Empty when there is none.
std::string record_readme(const fs::path& file) {
  const fs::path examples = fs::path(GPUBENCH_SOURCE_DIR) / "reports/examples";
  for (fs::path dir = file.parent_path(); dir != examples && dir.has_relative_path(); dir = dir.parent_path()) {
    if (fs::exists(dir / "README.md")) {
      std::ifstream in(dir / "README.md");
      return std::string(std::istreambuf_iterator<char>(in), {});
    }
  }
  return "";
}

// An example made with another LibTorch than this build's is stale, unless a README beside
// it says it records that LibTorch (a dated measurement, kept as evidence):
// scripts/regenerate-examples.sh remakes each folder.
TEST(CommittedReports, ExamplesAreFromThisBuildsLibTorchOrSayWhatTheyRecord) {
  const std::string built = major_minor(GPUBENCH_TORCH_VERSION);
  int current = 0;
  for (const fs::path& file : committed_json_files()) {
    if (file.string().find("/reports/examples/") == std::string::npos) continue;
    std::ifstream in(file);
    const nlohmann::json document = nlohmann::json::parse(in);
    if (!document.contains("env")) continue;  // a ceilings file
    const std::string made_with = major_minor(document["env"].value("torch_version", "unknown"));
    if (made_with == built) {
      ++current;
      continue;
    }
    EXPECT_NE(record_readme(file).find("LibTorch " + made_with), std::string::npos)
        << file << " was made with LibTorch " << made_with << ", this build's is " << built
        << ": remake it (scripts/regenerate-examples.sh), or say in a README.md beside it that it records LibTorch "
        << made_with;
  }
  EXPECT_GT(current, 0) << "no example comes from this build's LibTorch";
}

TEST(CommittedReports, TheCiBaselineHasTheConfigsCiPerfCheckRuns) {
  const auto baseline = load_report(std::string(GPUBENCH_SOURCE_DIR) + "/reports/baselines/ci-cpu.json", "BASE");
  std::vector<std::string> ok;
  for (const auto& result : baseline["results"])
    if (result["status"] == "ok") ok.push_back(result["config_id"].get<std::string>());
  // scripts/ci-perf-check.sh's default GPUBENCH_CI_MATRIX.
  for (const char* config : {"mlp/cpu/fp32", "cnn/cpu/fp32", "transformer/cpu/fp32"})
    EXPECT_NE(std::find(ok.begin(), ok.end(), config), ok.end()) << config;
}

// The same-job runs behind docs/ci.md's "What was measured": the verdicts quoted there
// follow from the committed runs (a change to the run-level test that changes them shows).
Verdict verdict_of(const CompareResult& result, const std::string& config_id) {
  for (const ConfigComparison& c : result.configs)
    if (c.config_id == config_id) return c.verdict;
  ADD_FAILURE() << config_id << " not compared";
  return Verdict::no_change;
}

CompareResult compare_committed_pairs(const std::string& example) {
  const std::string dir = std::string(GPUBENCH_SOURCE_DIR) + "/reports/examples/perf-check/" + example;
  CompareOptions options;
  options.paired = true;
  return compare_report_sets(load_report_set(dir + "/base", "BASE"), load_report_set(dir + "/head", "NEW"), options);
}

TEST(CommittedReports, SameJobExamplesGiveTheReadmesVerdicts) {
  for (const char* example : {"aa-5-pairs-threads1", "aa-5-pairs-threads2", "aa-8-pairs-mlp-threads2",
                               "aa-8-pairs-mlp-threads1", "ab-5-pairs-threads1-sleep5ms"}) {
    SCOPED_TRACE(example);
    const CompareResult aa = compare_committed_pairs(example);
    EXPECT_FALSE(aa.configs.empty());
    EXPECT_FALSE(aa.regression);
    EXPECT_EQ(aa.improvements, 0u);
  }

  const CompareResult ab = compare_committed_pairs("ab-10-pairs-threads1-sleep5ms");
  EXPECT_EQ(verdict_of(ab, "mlp/cpu/fp32"), Verdict::regression);
  EXPECT_EQ(verdict_of(ab, "transformer/cpu/fp32"), Verdict::regression);
  EXPECT_EQ(verdict_of(ab, "cnn/cpu/fp32"), Verdict::no_change);
  EXPECT_EQ(ab.base.runs, 10u);
}

}  // namespace
}  // namespace gpubench
