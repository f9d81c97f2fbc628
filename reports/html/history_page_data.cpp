#include "reports/html/history_page_data.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <vector>

#include "core/config/errors.h"
#include "reports/compare/compare_metric.h"
#include "reports/compare/environment_diff.h"
#include "reports/compare/report_loader.h"
#include "reports/json_fields.h"
#include "reports/html/report_header.h"
#include "core/stats/summary.h"

namespace gpubench {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct ReportFile {
  std::string path, created;
};

std::vector<ReportFile> list_reports(const std::string& folder) {
  std::error_code error;
  if (!fs::is_directory(folder, error))
    throw UsageError("--history '" + folder +
                     "' is not a folder: expected a folder of gpubench reports (*.json) over time");
  std::vector<ReportFile> files;
  fs::directory_iterator entry(folder, error), end;
  for (; !error && entry != end; entry.increment(error)) {
    std::error_code is_dir_error;
    if (entry->path().extension() == ".json" && !fs::is_directory(entry->path(), is_dir_error))
      files.push_back({entry->path().string(), ""});
  }
  if (error) throw UsageError("--history folder '" + folder + "' cannot be read: " + error.message());
  if (files.empty()) throw UsageError("--history folder '" + folder + "' holds no *.json reports");
  for (ReportFile& file : files) file.created = scan_created_utc(file.path);
  // ISO 8601 UTC sorts as text; same second (or no date): name order.
  std::sort(files.begin(), files.end(), [](const ReportFile& a, const ReportFile& b) {
    return std::tie(a.created, a.path) < std::tie(b.created, b.path);
  });
  return files;
}

struct Point {
  std::size_t report;
  double median, p10, p90;
};

// One config's one metric over the history.
struct Series {
  std::vector<Point> points;
  json marks = json::array();
  std::vector<double> last_values;  // the baseline of the next report
  std::size_t last_report = 0;
};

struct History {
  std::vector<std::string> config_order;
  std::map<std::string, std::map<std::string, Series>> series;  // config -> metric -> series
};

json mark(std::size_t report, std::size_t against, const ConfigComparison& c) {
  const auto r = [](std::optional<double> v) { return json_fields::rounded(v, 4); };
  return {{"report", report},
          {"against", against},
          {"verdict", to_string(c.verdict)},
          {"decision", to_string(c.basis)},
          {"change", r(c.median_change)},
          {"low", c.shift ? r(c.shift->low) : json()},
          {"high", c.shift ? r(c.shift->high) : json()},
          {"p_value", c.p_value ? json_fields::rounded(*c.p_value, 3) : json()},
          {"reason", c.reason}};
}

void add_result(History& history, std::size_t index, const json& result, const CompareOptions& options) {
  const std::string id = result_key(result);  // validated by load_report
  if (result["status"] != "ok") return;
  if (!history.series.count(id)) history.config_order.push_back(id);
  auto& metrics = history.series[id];
  for (const CompareMetric& metric : compare_metrics()) {
    MetricValues found = metric_values(result, metric);
    if (found.values.empty()) continue;
    Series& s = metrics[metric.name];
    const Summary summary = summarize(found.values);
    s.points.push_back({index, summary.median, summary.p10, summary.p90});
    if (!s.last_values.empty()) {
      const ConfigComparison c = compare_values(id, s.last_values, found.values, metric, options);
      if (c.verdict != Verdict::no_change) s.marks.push_back(mark(index, s.last_report, c));
    }
    s.last_values = std::move(found.values);
    s.last_report = index;
  }
}

json series_json(const Series& s, std::size_t reports, const CompareMetric& metric) {
  json median(json::array()), p10(json::array()), p90(json::array());
  for (std::size_t i = 0; i < reports; ++i) median.push_back(nullptr);
  p10 = p90 = median;
  for (const Point& p : s.points) {
    median[p.report] = json_fields::rounded(p.median);
    p10[p.report] = json_fields::rounded(p.p10);
    p90[p.report] = json_fields::rounded(p.p90);
  }
  json out = {{"median", median}, {"marks", s.marks}};
  if (metric.kind == MetricKind::per_step) {  // one value per run has no spread to draw
    out["p10"] = p10;
    out["p90"] = p90;
  }
  return out;
}

// What compare's environment check would say between two neighbours in time.
json trimmed_environment(const json& report) {
  return {{"env", json_fields::object_or_empty(report, "env")},
          {"matrix", {{"preset", json_fields::object_or_empty(report, "matrix").value("preset", json())}}}};
}

}  // namespace

json history_page_data(const std::string& folder, const CompareOptions& options) {
  const std::vector<ReportFile> files = list_reports(folder);
  History history;
  json reports = json::array(), warnings = json::array(), previous_env;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const json report = load_report(files[i].path, "history");
    const json& tool = json_fields::object_or_empty(report, "tool");
    json changes = json::array();
    const json env = trimmed_environment(report);
    if (i > 0)
      for (const std::string& line : environment_warnings(previous_env, env, "the previous report", "this one"))
        changes.push_back(line);
    previous_env = env;
    if (files[i].created.empty())
      warnings.push_back("'" + files[i].path + "' has no created_utc: placed first, in name order");
    reports.push_back({{"file", fs::path(files[i].path).filename().string()},
                       {"created_utc", files[i].created},
                       {"commit", json_fields::text(tool, "git_commit")},
                       {"version", json_fields::text(tool, "version")},
                       {"env_changes", changes}});
    try {
      for (const json& result : report["results"]) add_result(history, i, result, options);
    } catch (const json::exception& error) {
      throw UsageError("history report '" + files[i].path + "' has a field of an unexpected type: " + error.what());
    }
  }
  json configs = json::array(), metrics = json::array();
  for (const CompareMetric& metric : compare_metrics())
    metrics.push_back({{"name", metric.name}, {"unit", metric.unit}, {"higher_is_better", metric.higher_is_better}});
  for (const std::string& id : history.config_order) {
    json per_metric = json::object();
    for (const CompareMetric& metric : compare_metrics())
      if (const auto found = history.series[id].find(metric.name); found != history.series[id].end())
        per_metric[metric.name] = series_json(found->second, files.size(), metric);
    configs.push_back({{"id", id}, {"metrics", per_metric}});
  }
  return {{"kind", "history"},      {"title", "gpubench history: " + folder},
          {"source", folder},       {"threshold", options.threshold},
          {"alpha", options.alpha}, {"reports", reports},
          {"metrics", metrics},     {"configs", configs},
          {"warnings", warnings}};
}

}  // namespace gpubench
