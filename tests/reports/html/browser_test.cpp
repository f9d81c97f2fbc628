// The pages in a real browser (headless Chromium, found at configure time): each kind
// loads with no error and every chart draws data on a non-blank canvas; a report full of
// hostile strings runs none of them; a history of 500 reports of 60 configs stays usable.
// Screenshots go to GPUBENCH_SCREENSHOT_DIR for a person to look at.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "reports/compare/report_loader.h"
#include "reports/html/chromium_page.h"
#include "reports/html/compare_page_data.h"
#include "reports/html/history_page_data.h"
#include "reports/html/html_page.h"
#include "reports/html/report_page_data.h"
#include "reports/html/synthetic_reports.h"
#include "support/run_command.h"

namespace gpubench {
namespace {

using nlohmann::json;
using test_support::PageLoad;
using test_support::synthetic_report;
using test_support::SyntheticSpec;

const std::string kExamples = GPUBENCH_SOURCE_DIR "/reports/examples";
// Would set data-pwned on the html element if any of it ran as script or markup.
const std::string kHostile =
    " </script><script>document.documentElement.dataset.pwned='script'</script>"
    "\"><img src=x onerror=\"document.documentElement.dataset.pwned='img'\">"
    "'; document.documentElement.dataset.pwned='js'; '\u2028\u2029<!--<script>\u202e\u2066";

class Browser : public ::testing::Test {
 protected:
  std::string dir = test_support::make_temp_dir("html");
  test_support::Chromium chromium{GPUBENCH_CHROMIUM, dir};

  void SetUp() override {
    if (!chromium.usable())
      GTEST_SKIP() << "no Chromium (configure found '" GPUBENCH_CHROMIUM
                      "'): apt-get install chromium (scripts/setup.sh)";
    if (!html_pages_available()) GTEST_SKIP() << chartjs_description();
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  std::string write_page(const std::string& name, const json& data, const PageOptions& options = {}) {
    const std::string path = dir + "/" + name;
    std::ofstream(path) << render_page(data, options);
    return path;
  }
  std::string write_report(const std::string& name, const json& report) {
    const std::string path = dir + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << report.dump(-1, ' ', false, json::error_handler_t::replace);
    return path;
  }

  // Loaded with no error recorded, finished, every chart drawn with data on a non-blank
  // canvas; returns the number of charts.
  int expect_every_chart_drew(const std::string& page) {
    const PageLoad load = chromium.open(page, "all,check");
    EXPECT_EQ(load.exit_code, 0);
    EXPECT_EQ(load.html.count("data-page-errors"), 0u) << errors_of(load);
    EXPECT_EQ(load.body.count("data-ready") ? load.body.at("data-ready") : "", "1") << errors_of(load);
    const auto number = [&](const char* name) { return load.body.count(name) ? std::stoi(load.body.at(name)) : -1; };
    EXPECT_GT(number("data-charts-expected"), 0);
    EXPECT_EQ(number("data-charts-drawn"), number("data-charts-expected"));
    EXPECT_EQ(number("data-charts-failed"), 0);
    EXPECT_EQ(number("data-charts-empty"), 0);
    EXPECT_EQ(number("data-charts-blank"), 0);
    EXPECT_EQ(number("data-wide-tables"), 0) << "a table scrolls sideways at 1400 px";
    return number("data-charts-expected");
  }

  static std::string errors_of(const PageLoad& load) {
    const std::size_t at = load.dom.find("<pre id=\"page-errors\"");
    return at == std::string::npos ? "(no error box)" : load.dom.substr(at, 2000);
  }

  void screenshot(const std::string& page, const std::string& name, int height) {
    std::filesystem::create_directories(GPUBENCH_SCREENSHOT_DIR);
    const std::string png = std::string(GPUBENCH_SCREENSHOT_DIR) + "/" + name;
    EXPECT_GT(chromium.screenshot(page, png, height), 20000) << png;
    std::cout << "screenshot: " << png << "\n";
  }
};

// One report with everything the page draws: tokens/s, device phases, techniques, a
// recipe's ablation, a skipped row.
json rich_report() {
  SyntheticSpec spec;
  spec.configs = 6;
  json report = synthetic_report(spec);
  json& gpt2 = report["results"][3];
  gpt2["throughput"]["tokens_per_s"] = {{"median", 50000.0}, {"p10", 48000.0}, {"p90", 52000.0}, {"count", 30}};
  gpt2["device_phases"] = gpt2["phases"];
  const auto comparison = [](const std::string& kind, const std::string& technique, const std::string& position,
                             double speedup) {
    return json{{"kind", kind},
                {"workload", "mlp"},
                {"baseline", "mlp/cpu/fp32/acc1"},
                {"candidate", "mlp/cpu/fp32/acc2"},
                {"speedup", speedup},
                {"memory_metric", "host_peak_rss_bytes"},
                {"memory_ratio", 1.02},
                {"speedup_ci95", {speedup * 0.95, speedup * 1.05}},
                {"technique", technique},
                {"position", position},
                {"recipe", "mlp/cpu/fp32/adam-fused/channels-last"},
                {"device", "cpu"}};
  };
  report["comparisons"] = {
      comparison("accumulate_vs_single", "", "", 0.9),       comparison("ablation", "recipe", "recipe", 1.3),
      comparison("ablation", "adam-fused", "alone", 1.1),    comparison("ablation", "adam-fused", "in_stack", 1.05),
      comparison("ablation", "channels-last", "alone", 1.2), comparison("ablation", "channels-last", "in_stack", 1.15)};
  return report;
}

TEST_F(Browser, OneReportDrawsEveryChart) {
  const std::string quick =
      write_page("cpu-quick.html", report_page_data(load_report(kExamples + "/cpu-quick.json"), "cpu-quick.json"));
  EXPECT_EQ(expect_every_chart_drew(quick), 5);  // samples/s, phases, memory, techniques, loss
  screenshot(quick, "report-cpu-quick.png", 3000);
  const std::string rich = write_page("rich.html", report_page_data(rich_report(), "rich.json"));
  EXPECT_EQ(expect_every_chart_drew(rich), 7);  // + tokens/s, the recipe's ablation
  screenshot(rich, "report-ablation.png", 3600);
}

// `--matrix all` on this machine without a GPU, as its report's page: every config the
// listing names, the 25 that run here as measured rows (synthetic numbers), the rest skipped
// with their real reasons (LibTorch's no-driver message 121 times, the real-scale refusals).
// At 1400x900 the page leads with what was measured and stays short (issue 59, item 3): it
// was 16,000 pixels of skipped rows, the reasons behind a horizontal scroll.
json full_matrix_report_without_a_gpu() {
  const auto listing = test_support::run_command(std::string(GPUBENCH_EXE) + " --list --matrix all --format json 2>/dev/null");
  EXPECT_EQ(listing.exit_code, 0) << listing.output;
  const json configs = json::parse(listing.output);
  SyntheticSpec spec;
  spec.with_skipped = false;
  spec.configs = 0;
  for (const json& config : configs) spec.configs += config["runs_here"].get<bool>() ? 1 : 0;
  json report = synthetic_report(spec);
  std::size_t measured = 0;
  json results = json::array();
  for (const json& config : configs) {
    if (config["runs_here"].get<bool>()) {
      json row = report["results"][measured++];
      row["config_id"] = config["id"];
      results.push_back(row);
    } else {
      results.push_back({{"config_id", config["id"]}, {"status", "skipped"}, {"reason", config["reason"]},
                         {"config", {{"workload", "w"}, {"device", "cuda"}}}});
    }
  }
  report["results"] = results;
  return report;
}

TEST_F(Browser, AFullMatrixWithoutAGpuLeadsWithWhatWasMeasuredAndFitsTheWindow) {
  const json report = full_matrix_report_without_a_gpu();
  ASSERT_GT(report["results"].size(), 100u);
  const std::string page = write_page("full-matrix.html", report_page_data(report, "full.json"));
  const PageLoad load = chromium.open(page, "all", 900);
  ASSERT_EQ(load.body.count("data-ready") ? load.body.at("data-ready") : "", "1") << errors_of(load);
  EXPECT_EQ(load.html.count("data-page-errors"), 0u) << errors_of(load);
  const auto number = [&](const char* name) { return load.body.count(name) ? std::stoi(load.body.at(name)) : -1; };
  std::cout << "full matrix page: " << number("data-page-height") << " px tall, first measured row at "
            << number("data-first-row-top") << " px\n";
  EXPECT_EQ(number("data-wide-tables"), 0) << "a table scrolls sideways at 1400 px";
  EXPECT_GT(number("data-page-height"), 0);
  EXPECT_LT(number("data-page-height"), 5 * 900) << "more than five screens";
  EXPECT_GE(number("data-first-row-top"), 0);
  EXPECT_LT(number("data-first-row-top"), 900) << "the first screen shows no measured row";
  // The skipped rows are said once a reason, folded: LibTorch's driver message once.
  const std::size_t group = load.dom.find(" skipped: no CUDA device");
  ASSERT_NE(group, std::string::npos) << "no folded group of the CUDA rows";
  EXPECT_NE(load.dom.rfind("<details class=\"skipped-group\"><summary>", group), std::string::npos);
  std::size_t mentions = 0;  // in the page's elements (the page's data holds every row's)
  for (std::size_t at = load.dom.find("<summary>"); at != std::string::npos; at = load.dom.find("<summary>", at + 1))
    mentions += load.dom.substr(at, load.dom.find("</summary>", at) - at).find("Found no NVIDIA driver") != std::string::npos;
  EXPECT_EQ(mentions, 1u);
  screenshot(page, "report-full-matrix-no-gpu.png", std::max(900, number("data-page-height")));

  // Its comparison with a second run: the configs neither side measured are folded a reason
  // each, once a metric (they were a line each, LibTorch's message 156 times a metric: a
  // 54,577-pixel page for two real full-matrix reports).
  const std::string base = write_report("full-base.json", report);
  json again = report;
  again["created_utc"] = "2026-12-02T00:00:00Z";
  const std::string next = write_report("full-new.json", again);
  const json data = compare_page_data(load_report_set(base, "BASE"), load_report_set(next, "NEW"), CompareOptions{});
  const std::string compare = write_page("full-compare.html", data);
  const PageLoad compared = chromium.open(compare, "all", 900);
  EXPECT_EQ(compared.html.count("data-page-errors"), 0u) << errors_of(compared);
  EXPECT_EQ(compared.body.count("data-wide-tables") ? compared.body.at("data-wide-tables") : "", "0");
  std::size_t groups = 0, driver = 0;
  for (std::size_t at = compared.dom.find("<summary>"); at != std::string::npos; at = compared.dom.find("<summary>", at + 1)) {
    const std::string summary = compared.dom.substr(at, compared.dom.find("</summary>", at) - at);
    groups += summary.find(" not compared: ") != std::string::npos;
    driver += summary.find("Found no NVIDIA driver") != std::string::npos;
  }
  EXPECT_GT(groups, 0u);
  EXPECT_LE(driver, data["metrics"].size()) << "the driver's message once a metric at most";
  std::cout << "full matrix comparison: " << (compared.body.count("data-page-height") ? compared.body.at("data-page-height") : "?")
            << " px tall\n";
  screenshot(compare, "compare-full-matrix-no-gpu.png", 2400);
}

TEST_F(Browser, TwoReportsShowWhatCompareDecides) {
  SyntheticSpec spec;
  const std::string base = write_report("base.json", synthetic_report(spec));
  spec.seed = 2;
  spec.slowdown = 1.2;
  spec.slow_config = 1;
  const std::string next = write_report("new.json", synthetic_report(spec));
  const json data = compare_page_data(load_report_set(base, "BASE"), load_report_set(next, "NEW"), CompareOptions{});
  ASSERT_TRUE(data["regression"]);
  const std::string page = write_page("compare.html", data);
  EXPECT_EQ(expect_every_chart_drew(page), 2 * static_cast<int>(data["metrics"].size()));
  const PageLoad load = chromium.open(page, "all");
  EXPECT_NE(load.dom.find("REGRESSION in samples_per_s"), std::string::npos);
  screenshot(page, "compare-two-reports.png", 2400);
}

TEST_F(Browser, TwoFoldersOfRunsShowTheRunLevelDecision) {
  const std::string dir_runs = kExamples + "/perf-check/ab-10-pairs-threads1-sleep5ms";
  CompareOptions options;
  options.paired = true;
  const json data = compare_page_data(load_report_set(dir_runs + "/base", "BASE"),
                                      load_report_set(dir_runs + "/head", "NEW"), options);
  const std::string page = write_page("compare-runs.html", data);
  EXPECT_EQ(expect_every_chart_drew(page), 2 * static_cast<int>(data["metrics"].size()));
  screenshot(page, "compare-folders-paired.png", 2400);
}

TEST_F(Browser, HistoryDrawsTrendsWithRegressionsMarked) {
  for (int i = 0; i < 12; ++i) {
    SyntheticSpec spec;
    spec.configs = 6;
    spec.seed = i + 1;
    spec.created_utc = test_support::synthetic_time(i);
    spec.git_commit = "c0ffee" + std::to_string(i);
    if (i >= 8) {
      spec.slowdown = 1.25;
      spec.slow_config = 1;
    }
    write_report("history/run-" + std::to_string(100 - i) + ".json", synthetic_report(spec));  // names against time
  }
  const json data = history_page_data(dir + "/history", CompareOptions{});
  ASSERT_EQ(data["configs"][1]["metrics"]["samples_per_s"]["marks"].size(), 1u);
  const std::string page = write_page("history.html", data);
  EXPECT_EQ(expect_every_chart_drew(page), 6 * 3);  // samples/s, step ms, host RSS per config
  screenshot(page, "history-12-reports.png", 2200);
}

TEST_F(Browser, HostileStringsInAReportRunNothing) {
  SyntheticSpec spec;
  spec.text = kHostile + "\xff\xfe";
  const std::string report_path = write_report("hostile.json", synthetic_report(spec));
  json direct = synthetic_report(spec);  // not through load_report, which refuses such a config id
  direct["results"][0]["config_id"] = "mlp/cpu/fp32" + kHostile;
  direct["comparisons"] = {{{"kind", "k" + kHostile},
                            {"candidate", kHostile},
                            {"baseline", kHostile},
                            {"speedup", 1.1},
                            {"memory_ratio", 1.0},
                            {"recipe", kHostile}}};
  spec.seed = 2;
  spec.text = kHostile + " (new)";
  const std::string other = write_report("hostile-new.json", synthetic_report(spec));
  const std::vector<std::pair<std::string, json>> pages = {
      {"report", report_page_data(load_report(report_path), report_path + kHostile)},
      {"direct", report_page_data(direct, "direct.json")},
      {"compare",
       compare_page_data(load_report_set(report_path, "BASE"), load_report_set(other, "NEW"), CompareOptions{})}};
  for (const auto& [name, data] : pages)
    for (const bool csp : {true, false}) {  // the escaping alone holds, without the CSP's second line
      SCOPED_TRACE(name + (csp ? " with CSP" : " without CSP"));
      const std::string page = write_page("hostile-" + name + (csp ? "" : "-nocsp") + ".html", data, PageOptions{csp});
      expect_every_chart_drew(page);
      const PageLoad load = chromium.open(page, "all");
      EXPECT_EQ(load.html.count("data-pwned"), 0u);
      EXPECT_EQ(load.dom.find("<img"), std::string::npos);  // no element made from a report's markup
      // Shown as text: the DOM serialises text nodes with < escaped.
      EXPECT_NE(load.dom.find("&lt;/script&gt;&lt;script&gt;document.documentElement.dataset.pwned"),
                std::string::npos);
      // What a browser obeys unseen (a right-to-left override, the line separators) is shown
      // as its escape, never raw in the page.
      for (const char* hidden : {"\u202e", "\u2066", "\u2028", "\u2029"})
        EXPECT_EQ(load.dom.find(hidden), std::string::npos) << "raw in the page";
      EXPECT_NE(load.dom.find("\\u202e\\u2066"), std::string::npos) << "shown escaped";
    }
  screenshot(dir + "/hostile-direct.html", "report-hostile-strings.png", 1800);
}

// The checks above can fail: a page whose script breaks, or whose script the CSP blocks
// (one byte changed after hashing), is reported in the DOM.
TEST_F(Browser, BrokenPagesAreReportedNotSilent) {
  const PageLoad unknown = chromium.open(write_page("unknown.html", json{{"kind", "nonsense"}}), "all");
  EXPECT_EQ(unknown.html.count("data-page-errors"), 1u);
  EXPECT_NE(unknown.dom.find("no page for data of kind"), std::string::npos);
  std::string page = render_page(report_page_data(load_report(kExamples + "/cpu-quick.json"), "q.json"));
  page.replace(page.rfind("'use strict'"), 12, "'use strict'; ");
  std::ofstream(dir + "/tampered.html") << page;
  const PageLoad tampered = chromium.open(dir + "/tampered.html", "all");
  EXPECT_EQ(tampered.html.count("data-page-errors"), 1u);
  EXPECT_NE(tampered.dom.find("content security policy"), std::string::npos) << errors_of(tampered);
  EXPECT_EQ(tampered.body.count("data-charts-drawn"), 0u);
}

// 500 reports of 60 configs (30 steps each): the page's size, how long gpubench takes to
// make it, and how long Chromium takes to show it (charts drawn as they scroll into view)
// and to draw all 180 charts at once.
TEST_F(Browser, HistoryOf500ReportsOf60ConfigsStaysUsable) {
  for (int i = 0; i < 500; ++i) {
    SyntheticSpec spec;
    spec.configs = 60;
    spec.seed = i + 1;
    spec.with_skipped = false;
    spec.created_utc = fmt::format("2026-{:02d}-{:02d}T{:02d}:00:00Z", 1 + i / 50, 1 + (i % 50) / 2, (i % 2) * 12);
    spec.git_commit = fmt::format("{:012x}", 0xabc000 + i);
    if (i >= 400) {
      spec.slowdown = 1.25;
      spec.slow_config = 7;
    }
    write_report(fmt::format("big/report-{:04d}.json", (i * 7919) % 500), synthetic_report(spec));
  }
  const auto start = std::chrono::steady_clock::now();
  const json data = history_page_data(dir + "/big", CompareOptions{});
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string page = write_page("big.html", data);
  const double mib = std::filesystem::file_size(page) / (1024.0 * 1024.0);
  PageLoad lazy = chromium.open(page, "");
  PageLoad all = chromium.open(page, "all");
  std::cout << fmt::format(
      "history 500 reports x 60 configs: page {:.2f} MiB, made in {:.1f} s; Chromium: first "
      "render {} ms ({:.1f} s for the process), all 180 charts {} ms ({:.1f} s)\n",
      mib, build_s, lazy.body["data-render-ms"], lazy.wall_s, all.body["data-render-ms"], all.wall_s);
  EXPECT_LT(mib, 4.0);
  EXPECT_EQ(lazy.html.count("data-page-errors"), 0u);
  EXPECT_EQ(all.html.count("data-page-errors"), 0u);
  EXPECT_LT(std::stoi(lazy.body["data-render-ms"]), 5000);
  EXPECT_EQ(all.body["data-charts-drawn"], "180");
  EXPECT_EQ(data["configs"][7]["metrics"]["samples_per_s"]["marks"].size(), 1u);
  screenshot(page, "history-500x60.png", 1600);
}

}  // namespace
}  // namespace gpubench
