#include "reports/compare/compare_reports.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>
#include <utility>

#include "core/config/errors.h"
#include "reports/compare/config_runs.h"
#include "reports/verdicts.h"
#include "reports/compare/environment_diff.h"
#include "reports/compare/report_loader.h"

namespace gpubench {
namespace {

using nlohmann::json;

void check_options(const CompareOptions& options) {
  if (!std::isfinite(options.threshold) || options.threshold < 0 || options.threshold >= 1)
    throw UsageError(
        fmt::format("threshold {} is out of range: expected 0 <= threshold < 1 (5% = 0.05)", options.threshold));
  if (!std::isfinite(options.alpha) || options.alpha < kMinAlpha || options.alpha > kMaxAlpha)
    throw UsageError(fmt::format("--alpha {} is out of range: expected {:g} <= alpha <= {:g} (0.01 = 1%)", options.alpha,
                                 kMinAlpha, kMaxAlpha));
  find_compare_metric(options.metric);
}

// tool.version and tool.git_commit of one report ("" when absent).
ReportInfo provenance_of(const json& report) {
  ReportInfo info;
  if (const auto tool = report.find("tool"); tool != report.end() && tool->is_object()) {
    if (tool->contains("version") && (*tool)["version"].is_string()) info.tool_version = (*tool)["version"];
    if (tool->contains("git_commit") && (*tool)["git_commit"].is_string()) info.git_commit = (*tool)["git_commit"];
  }
  return info;
}

ReportInfo info_of(const ReportSet& set) {
  ReportInfo info = provenance_of(set.runs.front());
  info.name = set.name;
  info.runs = set.runs.size();
  return info;
}

// Runs of one side that were not all built from the same commit and version.
std::optional<std::string> mixed_provenance(const ReportSet& set, const std::string& role) {
  std::set<std::string> builds;
  for (const json& run : set.runs) {
    const ReportInfo info = provenance_of(run);
    builds.insert((info.tool_version.empty() ? "?" : info.tool_version) + " commit " +
                  (info.git_commit.empty() ? "?" : info.git_commit));
  }
  if (builds.size() < 2) return std::nullopt;
  std::string list;
  for (const std::string& build : builds) list += (list.empty() ? "" : ", ") + build;
  return fmt::format("the {} {} runs come from {} different builds ({}): they do not measure one version", set.runs.size(),
                     role, builds.size(), list);
}

void check_run_sets(const ReportSet& base, const ReportSet& next, const CompareOptions& options) {
  const std::size_t b = base.runs.size(), n = next.runs.size();
  if (b == 0 || n == 0) throw UsageError("compare needs at least one report a side");
  if ((b == 1) != (n == 1))
    throw UsageError(fmt::format(
        "BASE has {} run{} and NEW {}: compare one report a side, or at least 2 runs a side (a single run cannot "
        "show how much whole runs differ, which is what the run-level test measures)",
        b, b == 1 ? "" : "s", n));
  if (options.paired && b == 1)
    throw UsageError("--paired needs several runs a side (directories of reports, run i of BASE next to run i of NEW)");
  if (options.paired && b != n)
    throw UsageError(fmt::format(
        "--paired needs as many NEW runs as BASE runs (run i of each ran back to back): BASE has {}, NEW has {}", b, n));
  // Pairs are made by name order; a stray or missing file would shift every later pair.
  for (std::size_t i = 0; options.paired && i < b; ++i) {
    const std::string base_file = std::filesystem::path(base.run_names[i]).filename().string();
    const std::string next_file = std::filesystem::path(next.run_names[i]).filename().string();
    if (base_file != next_file)
      throw UsageError(fmt::format(
          "--paired pairs runs by name order, and BASE run {} is '{}' while NEW run {} is '{}': name each pair "
          "alike in both directories (run-01.json, run-02.json, ...)",
          i + 1, base.run_names[i], i + 1, next.run_names[i]));
  }
}

// "BASE report 'a.json' (12 results)" or "BASE runs in 'dir' (5 reports)".
std::string side_label(const std::string& role, const ReportSet& set) {
  if (set.runs.size() == 1)
    return report_label(role, set.name) + " (" + std::to_string(set.runs.front()["results"].size()) + " results)";
  return role + " runs in '" + set.name + "' (" + std::to_string(set.runs.size()) + " reports)";
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
         {"new", side_json(c.next)},
         {"disturbed", c.disturbed}});
  }
  json not_compared = json::array();
  for (const NotCompared& n : r.not_compared)
    not_compared.push_back({{"config_id", n.config_id}, {"reason", n.reason}});
  const auto side = [](const ReportInfo& info) {
    return json{{"path", info.name},
                {"tool_version", info.tool_version.empty() ? json() : json(info.tool_version)},
                {"git_commit", info.git_commit.empty() ? json() : json(info.git_commit)},
                {"runs", info.runs}};
  };
  return {{"metric",
           {{"name", r.metric.name},
            {"unit", r.metric.unit},
            {"higher_is_better", r.metric.higher_is_better},
            {"kind", r.metric.kind == MetricKind::per_step ? "per_step" : "single_value"}}},
          {"threshold", r.options.threshold},
          {"alpha", r.options.alpha},
          {"confidence", 1 - r.options.alpha},
          {"paired", r.options.paired},
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
            {"not_compared", r.not_compared.size()},
            {"disturbed_regressions", r.disturbed_regressions},
            {"uncounted_regressions", r.uncounted_regressions}}},
          {"on_disturbed", to_string(r.options.on_disturbed)},
          {"regression", r.regression},
          {"retry", r.retry}};
}

// Each run of `side` in which `id`'s row was measured while the machine was disturbed (its
// interference probe's verdict, core/device/host_interference.h), with the row's warning.
std::vector<std::string> disturbances(const ReportSet& side, const std::string& id, const char* role) {
  std::vector<std::string> found;
  for (std::size_t run = 0; run < side.runs.size(); ++run) {
    const json* result = find_result(side, run, id);
    const json* interference = result == nullptr ? nullptr : disturbance(*result);
    if (interference == nullptr) continue;
    const json warning = interference->value("warning", json());  // not [] on a const object: the key may be absent
    const std::string where = side.runs.size() > 1 ? fmt::format("{} run '{}'", role, side.run_names[run]) : role;
    found.push_back(where + ": " + (warning.is_string() ? warning.get<std::string>() : "the machine was disturbed"));
  }
  return found;
}

}  // namespace

CompareResult compare_reports(const json& base, const std::string& base_name, const json& next,
                              const std::string& next_name, const CompareOptions& options) {
  return compare_report_sets({base_name, {base_name}, {base}, {}}, {next_name, {next_name}, {next}, {}}, options);
}

CompareResult compare_report_sets(const ReportSet& base, const ReportSet& next, const CompareOptions& options) {
  check_options(options);
  check_run_sets(base, next, options);
  for (std::size_t i = 0; i < base.runs.size(); ++i) validate_report(base.runs[i], "BASE", base.run_names[i]);
  for (std::size_t i = 0; i < next.runs.size(); ++i) validate_report(next.runs[i], "NEW", next.run_names[i]);
  const bool run_level = base.runs.size() > 1;

  CompareResult result;
  result.options = options;
  result.metric = find_compare_metric(options.metric);
  result.base = info_of(base);
  result.next = info_of(next);
  result.warnings = environment_warnings(base.runs.front(), next.runs.front());
  for (const auto& [set, role] : {std::pair{&base, "BASE"}, std::pair{&next, "NEW"}}) {
    if (auto warning = mixed_provenance(*set, role)) result.warnings.push_back(*warning);
    // Runs of one side are meant to be repeats on one machine: say where they are not.
    for (std::size_t i = 1; i < set->runs.size(); ++i)
      for (std::string& warning :
           environment_warnings(set->runs.front(), set->runs[i], fmt::format("{} run '{}'", role, set->run_names[0]),
                                fmt::format("{} run '{}'", role, set->run_names[i])))
        result.warnings.push_back(std::move(warning));
  }

  const std::vector<std::string> base_ids = config_ids(base), next_ids = config_ids(next);
  for (const std::string& id : base_ids) {
    const ConfigRuns base_runs = collect_config_runs(base, id, result.metric);
    const ConfigRuns next_runs = collect_config_runs(next, id, result.metric);
    if (!next_runs.present) {
      result.only_in_base.push_back(id);
      continue;
    }
    if (run_level) {
      RunLevelOutcome outcome = compare_config_runs(id, base, base_runs, next, next_runs, result.metric, options);
      if (outcome.warning) result.warnings.push_back(*outcome.warning);
      if (!outcome.comparison) {
        result.not_compared.push_back({id, outcome.not_compared});
        continue;
      }
      result.configs.push_back(std::move(*outcome.comparison));
    } else {
      const std::vector<double>& base_values = base_runs.values.front();
      const std::vector<double>& next_values = next_runs.values.front();
      if (base_values.empty() || next_values.empty()) {
        std::string reason;
        if (base_values.empty()) reason = "BASE " + base_runs.missing.front();
        if (next_values.empty()) reason += (reason.empty() ? "" : "; ") + std::string("NEW ") + next_runs.missing.front();
        result.not_compared.push_back({id, reason});
        continue;
      }
      result.configs.push_back(compare_values(id, base_values, next_values, result.metric, options));
    }
    if (base_runs.first_result != nullptr && next_runs.first_result != nullptr)  // both, once compared
      for (std::string& warning : workload_warnings(id, *base_runs.first_result, *next_runs.first_result))
        result.warnings.push_back(warning);
    ConfigComparison& compared = result.configs.back();
    compared.disturbed = disturbances(base, id, "BASE");
    for (std::string& where : disturbances(next, id, "NEW")) compared.disturbed.push_back(std::move(where));
    if (compared.verdict == Verdict::regression) {
      ++result.regressions;
      if (!compared.disturbed.empty()) {
        ++result.disturbed_regressions;
        if (options.on_disturbed != CompareOptions::OnDisturbed::count) ++result.uncounted_regressions;
      }
    }
    if (compared.verdict == Verdict::improvement) ++result.improvements;
  }
  const std::set<std::string> in_base(base_ids.begin(), base_ids.end());
  for (const std::string& id : next_ids)
    if (!in_base.count(id)) result.only_in_next.push_back(id);

  if (result.configs.empty()) {
    std::string why;
    for (std::size_t i = 0; i < result.not_compared.size() && i < 3; ++i)
      why += "; " + result.not_compared[i].config_id + ": " + result.not_compared[i].reason;
    if (result.not_compared.size() > 3) why += "; ...";
    throw UsageError("nothing to compare: no config is \"ok\" with " + result.metric.name + " values in both " +
                     side_label("BASE", base) + " and " + side_label("NEW", next) + why);
  }
  result.regression = result.regressions > result.uncounted_regressions;
  result.retry = !result.regression && result.uncounted_regressions > 0 &&
                 options.on_disturbed == CompareOptions::OnDisturbed::retry;
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
