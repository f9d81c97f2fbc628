// `gpubench compare --junit`: the file read back by junitparser, a real JUnit reader (the
// venv's, as CI reads it): one case per config, regressions failures with the numbers,
// configs not compared or on one side skipped with their reason, hostile strings escaped.
#include "reports/export/junit_export.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "reports/html/synthetic_reports.h"
#include "support/run_command.h"

namespace gpubench {
namespace {

using nlohmann::json;
using test_support::synthetic_report;
using test_support::SyntheticSpec;

const std::string kHostile = "]]><!-- </testcase> & \"quotes\" 'apostrophes' \x01\x1b[31m \xff \xEF\xBF\xBF";

// BASE and NEW of 4 configs: acc1 of cnn 20% slower (a regression), transformer 20%
// faster (an improvement), mlp unchanged, gpt2 failed on NEW with a hostile reason; one
// config only in BASE, one only in NEW.
CompareResult sample_comparison() {
  SyntheticSpec spec;
  json base = synthetic_report(spec);
  spec.seed = 2;
  json next = synthetic_report(spec);
  const auto scale = [](json& row, double factor) {
    for (json& ms : row["samples"]["step_ms"]) ms = ms.get<double>() * factor;
  };
  scale(next["results"][1], 1.2);
  scale(next["results"][2], 1 / 1.2);
  next["results"][3]["status"] = "failed";
  next["results"][3]["reason"] = "CUDA out of memory " + kHostile;
  base["results"].push_back(base["results"][0]);
  base["results"].back()["config_id"] = "mlp/cpu/bf16";
  next["results"].push_back(next["results"][0]);
  next["results"].back()["config_id"] = "mlp/cpu/amp-bf16";
  return compare_reports(base, "base.json", next, "new.json" + kHostile, CompareOptions{});
}

TEST(JunitXml, EscapesEveryStringFromAReport) {
  const std::string xml = compare_junit_xml(sample_comparison());
  EXPECT_EQ(xml.find("]]>"), std::string::npos);
  EXPECT_EQ(xml.find("</testcase> &"), std::string::npos);
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
  EXPECT_EQ(xml.find('\x1b'), std::string::npos);
  EXPECT_EQ(xml.find("\xEF\xBF\xBF"), std::string::npos);  // U+FFFF: not an XML character
  EXPECT_NE(xml.find("]]&gt;&lt;!-- &lt;/testcase&gt; &amp; &quot;quotes&quot; &apos;apostrophes&apos; \\x01\\x1b[31m"),
            std::string::npos);
  EXPECT_EQ(xml_escape("a\nb"), "a&#10;b");
}

class JunitParser : public ::testing::Test {
 protected:
  std::string dir = test_support::make_temp_dir("junit");
  void SetUp() override {
    const auto probe = test_support::run_command("'" GPUBENCH_PYTHON "' -c 'import junitparser'");
    if (probe.exit_code != 0)
      GTEST_SKIP() << "no junitparser for " GPUBENCH_PYTHON
                      " (pip install junitparser==5.0.3 into .venv; "
                      "scripts/setup.sh): "
                   << probe.output;
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  json read_back(const std::string& xml) {
    const std::string path = dir + "/compare.xml";
    std::ofstream(path) << xml;
    const auto run = test_support::run_command("'" GPUBENCH_PYTHON "' '" GPUBENCH_SOURCE_DIR
                                               "/tests/reports/export/junit_reader.py' '" +
                                               path + "' 2>/dev/null");
    EXPECT_EQ(run.exit_code, 0) << run.output;
    return json::parse(run.output);
  }
};

const json* find_case(const json& suite, const std::string& name) {
  for (const json& c : suite["cases"])
    if (c["name"] == name) return &c;
  return nullptr;
}

TEST_F(JunitParser, ReadsOneCasePerConfigWithFailuresAndSkips) {
  const CompareResult result = sample_comparison();
  const json read = read_back(compare_junit_xml(result));
  EXPECT_EQ(read["tests"], 7);  // 3 compared; gpt2 and mlp/cuda (skipped on both sides) not compared; 2 on one side
  EXPECT_EQ(read["failures"], 1);
  EXPECT_EQ(read["skipped"], 4);
  EXPECT_EQ(read["errors"], 0);
  ASSERT_EQ(read["suites"].size(), 1u);
  const json& suite = read["suites"][0];
  EXPECT_EQ(suite["name"], "gpubench compare samples_per_s");
  EXPECT_EQ(suite["properties"]["metric"], "samples_per_s");
  EXPECT_EQ(suite["properties"]["threshold"], "0.05");

  const json* slow = find_case(suite, "cnn/cpu/fp32/acc1");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ((*slow)["classname"], "gpubench.compare.samples_per_s");
  EXPECT_EQ((*slow)["outcome"], "failure");
  EXPECT_EQ((*slow)["type"], "regression");
  const std::string message = (*slow)["message"];
  // The numbers: the change, its interval, p, both medians with p10/p90 and counts, the threshold.
  for (const char* part : {"regression: samples_per_s -1", "% [", "at 99%, p = ", "BASE median ", "NEW median ",
                           "samples/s (p10 ", "; 30 steps)", "threshold 5%", "decided by u_test"})
    EXPECT_NE(message.find(part), std::string::npos) << part << " in " << message;
  EXPECT_NE((*slow)["text"].get<std::string>().find("p = "), std::string::npos);  // compare's reason

  for (const char* passed : {"mlp/cpu/fp32/acc1", "transformer/cpu/fp32/acc1"}) {
    const json* c = find_case(suite, passed);
    ASSERT_NE(c, nullptr) << passed;
    EXPECT_EQ((*c)["outcome"], "passed") << passed;
  }
  EXPECT_NE((*find_case(suite, "transformer/cpu/fp32/acc1"))["system_out"].get<std::string>().find("improvement: "),
            std::string::npos);

  const json* failed = find_case(suite, "gpt2/cpu/fp32/acc1");
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ((*failed)["outcome"], "skipped");
  const std::string reason = (*failed)["message"];
  EXPECT_NE(reason.find("not compared: NEW status failed: CUDA out of memory ]]><!-- </testcase> & \"quotes\""),
            std::string::npos)
      << reason;  // the hostile text, back as text
  EXPECT_EQ((*find_case(suite, "mlp/cpu/bf16"))["message"], "only in BASE: NEW has no result for this config");
  EXPECT_EQ((*find_case(suite, "mlp/cpu/amp-bf16"))["message"], "only in NEW: no baseline to compare with");
  EXPECT_EQ((*find_case(suite, "mlp/cuda/fp32"))["outcome"], "skipped");  // skipped on both sides
}

TEST_F(JunitParser, ReadsOneSuitePerMetric) {
  SyntheticSpec spec;
  const json base = synthetic_report(spec);
  spec.seed = 3;
  const json next = synthetic_report(spec);
  CompareOptions memory;
  memory.metric = "host_peak_rss_bytes";
  const CompareResult a = compare_reports(base, "a.json", next, "b.json", CompareOptions{});
  const CompareResult b = compare_reports(base, "a.json", next, "b.json", memory);
  const json read = read_back(compare_junit_xml({&a, &b}));
  ASSERT_EQ(read["suites"].size(), 2u);
  EXPECT_EQ(read["suites"][1]["name"], "gpubench compare host_peak_rss_bytes");
  EXPECT_EQ(read["failures"], 0);
  EXPECT_EQ(read["tests"], 2 * 5);
}

}  // namespace
}  // namespace gpubench
