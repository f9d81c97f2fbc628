#include "reports/compare/compare_reports.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

#include "config/errors.h"
#include "reports/compare/environment_diff.h"
#include "reports/compare/report_loader.h"

namespace gpubench {
namespace {

using nlohmann::json;

void check_options(const CompareOptions& options) {
  if (!std::isfinite(options.threshold) || options.threshold < 0 || options.threshold >= 1)
    throw UsageError(
        fmt::format("threshold {} is out of range: expected 0 <= threshold < 1 (5% = 0.05)", options.threshold));
  if (!std::isfinite(options.alpha) || options.alpha <= 0 || options.alpha > 0.5)
    throw UsageError(fmt::format("alpha {} is out of range: expected 0 < alpha <= 0.5", options.alpha));
  find_compare_metric(options.metric);
}

ReportInfo info_of(const json& report, const std::string& name) {
  ReportInfo info;
  info.name = name;
  if (const auto tool = report.find("tool"); tool != report.end() && tool->is_object()) {
    if (tool->contains("version") && (*tool)["version"].is_string()) info.tool_version = (*tool)["version"];
    if (tool->contains("git_commit") && (*tool)["git_commit"].is_string()) info.git_commit = (*tool)["git_commit"];
  }
  return info;
}

std::string status_of(const json& result) {
  std::string text = result["status"].get<std::string>();
  if (result.contains("reason") && result["reason"].is_string() && !result["reason"].get<std::string>().empty())
    text += ": " + result["reason"].get<std::string>();
  return text;
}

json number_or_null(double value) { return std::isfinite(value) ? json(value) : json(); }

template <typename T>
json optional_number(const std::optional<T>& value) {
  return value ? number_or_null(*value) : json();
}

json side_json(const Summary& s) {
  return {{"count", s.count}, {"median", s.median}, {"p10", s.p10}, {"p90", s.p90}, {"cv", number_or_null(s.cv())}};
}

json to_json(const CompareResult& r) {
  json configs = json::array();
  std::size_t unchanged = 0;
  for (const ConfigComparison& c : r.configs) {
    if (c.verdict == Verdict::no_change) ++unchanged;
    configs.push_back(
        {{"config_id", c.config_id},
         {"verdict", to_string(c.verdict)},
         {"decision", to_string(c.basis)},
         {"reason", c.reason},
         {"median_change", optional_number(c.median_change)},
         {"shift", c.shift ? number_or_null(c.shift->estimate) : json()},
         {"shift_ci", c.shift ? json::array({number_or_null(c.shift->low), number_or_null(c.shift->high)}) : json()},
         {"p_value", optional_number(c.p_value)},
         {"base", side_json(c.base)},
         {"new", side_json(c.next)}});
  }
  json not_compared = json::array();
  for (const NotCompared& n : r.not_compared)
    not_compared.push_back({{"config_id", n.config_id}, {"reason", n.reason}});
  const auto side = [](const ReportInfo& info) {
    return json{{"path", info.name},
                {"tool_version", info.tool_version.empty() ? json() : json(info.tool_version)},
                {"git_commit", info.git_commit.empty() ? json() : json(info.git_commit)}};
  };
  return {{"metric",
           {{"name", r.metric.name},
            {"unit", r.metric.unit},
            {"higher_is_better", r.metric.higher_is_better},
            {"kind", r.metric.kind == MetricKind::per_step ? "per_step" : "single_value"}}},
          {"threshold", r.options.threshold},
          {"alpha", r.options.alpha},
          {"confidence", 1 - r.options.alpha},
          {"base", side(r.base)},
          {"new", side(r.next)},
          {"configs", configs},
          {"only_in_base", r.only_in_base},
          {"only_in_new", r.only_in_next},
          {"not_compared", not_compared},
          {"warnings", r.warnings},
          {"summary",
           {{"compared", r.configs.size()},
            {"regressions", r.regressions},
            {"improvements", r.improvements},
            {"unchanged", unchanged},
            {"not_compared", r.not_compared.size()}}},
          {"regression", r.regression}};
}

}  // namespace

CompareResult compare_reports(const json& base, const std::string& base_name, const json& next,
                              const std::string& next_name, const CompareOptions& options) {
  check_options(options);
  validate_report(base, "BASE", base_name);
  validate_report(next, "NEW", next_name);

  CompareResult result;
  result.options = options;
  result.metric = find_compare_metric(options.metric);
  result.base = info_of(base, base_name);
  result.next = info_of(next, next_name);
  result.warnings = environment_warnings(base, next);

  std::map<std::string, const json*> next_by_id;
  for (const json& r : next["results"]) next_by_id[r["config_id"].get<std::string>()] = &r;
  std::map<std::string, bool> in_base;

  for (const json& base_result : base["results"]) {
    const std::string id = base_result["config_id"];
    in_base[id] = true;
    const auto found = next_by_id.find(id);
    if (found == next_by_id.end()) {
      result.only_in_base.push_back(id);
      continue;
    }
    const json& next_result = *found->second;
    const bool base_ok = base_result["status"] == "ok", next_ok = next_result["status"] == "ok";
    if (!base_ok || !next_ok) {
      std::string reason;
      if (!base_ok) reason = "BASE status " + status_of(base_result);
      if (!next_ok) reason += (reason.empty() ? "" : "; ") + std::string("NEW status ") + status_of(next_result);
      result.not_compared.push_back({id, reason});
      continue;
    }
    const MetricValues base_values = metric_values(base_result, result.metric);
    const MetricValues next_values = metric_values(next_result, result.metric);
    if (base_values.values.empty() || next_values.values.empty()) {
      std::string reason;
      if (base_values.values.empty()) reason = "BASE has " + base_values.missing;
      if (next_values.values.empty())
        reason += (reason.empty() ? "" : "; ") + std::string("NEW has ") + next_values.missing;
      result.not_compared.push_back({id, reason});
      continue;
    }
    for (std::string& warning : workload_warnings(id, base_result, next_result)) result.warnings.push_back(warning);
    result.configs.push_back(compare_values(id, base_values.values, next_values.values, result.metric, options));
    const Verdict verdict = result.configs.back().verdict;
    if (verdict == Verdict::regression) ++result.regressions;
    if (verdict == Verdict::improvement) ++result.improvements;
  }
  for (const json& next_result : next["results"]) {
    const std::string id = next_result["config_id"];
    if (!in_base.count(id)) result.only_in_next.push_back(id);
  }

  if (result.configs.empty()) {
    std::string why;
    for (std::size_t i = 0; i < result.not_compared.size() && i < 3; ++i)
      why += "; " + result.not_compared[i].config_id + ": " + result.not_compared[i].reason;
    if (result.not_compared.size() > 3) why += "; ...";
    throw UsageError("nothing to compare: no config is \"ok\" with " + result.metric.name + " values in both " +
                     report_label("BASE", base_name) + " (" + std::to_string(base["results"].size()) +
                     " results) and " + report_label("NEW", next_name) + " (" + std::to_string(next["results"].size()) +
                     " results)" + why);
  }
  result.regression = result.regressions > 0;
  result.json = to_json(result);
  return result;
}

double parse_threshold(const std::string& text) {
  const std::string hint = "expected a percentage like 5% or a fraction like 0.05";
  const bool is_percent = !text.empty() && text.back() == '%';
  const std::string number = is_percent ? text.substr(0, text.size() - 1) : text;
  if (number.empty() || std::isspace(static_cast<unsigned char>(number.front())))
    throw UsageError("--threshold '" + text + "' is not a number: " + hint);
  char* end = nullptr;
  const double parsed = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(parsed))
    throw UsageError("--threshold '" + text + "' is not a number: " + hint);
  const double value = is_percent ? parsed / 100 : parsed;
  if (value < 0) throw UsageError("--threshold '" + text + "' is negative: " + hint);
  if (value >= 1) {
    throw UsageError("--threshold '" + text + "' is 100% or more: " + hint +
                     (is_percent ? std::string() : " (did you mean " + text + "%?)"));
  }
  return value;
}

}  // namespace gpubench
