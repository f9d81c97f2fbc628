#include "reports/compare/compare_format.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "core/config/errors.h"
#include "core/io/json_text.h"
#include "core/io/printable.h"
#include "reports/fit_table.h"
#include "reports/report_format.h"

namespace gpubench {
namespace {

using Row = std::vector<std::string>;

std::string value_text(double value, const CompareMetric& metric) {
  if (metric.unit == "bytes") return fmt::format("{:.1f} MiB", value / (1024.0 * 1024.0));
  const double magnitude = std::fabs(value);
  if (magnitude >= 1000) return fmt::format("{:.0f}", value);
  if (magnitude >= 100) return fmt::format("{:.1f}", value);
  if (magnitude >= 1) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3g}", value);
}

std::string side_text(const Summary& s, const CompareMetric& metric) {
  if (metric.kind == MetricKind::single_value) return value_text(s.median, metric);
  return fmt::format("{} ({}-{}, cv {:.1f}%)", value_text(s.median, metric), value_text(s.p10, metric),
                     value_text(s.p90, metric), s.cv() * 100);
}

std::string verdict_text(const ConfigComparison& c) {
  std::string text = c.verdict == Verdict::regression    ? "REGRESSION"
                     : c.verdict == Verdict::improvement ? "improvement"
                                                         : "no change";
  if (c.basis == DecisionBasis::threshold_only) text += " (threshold only)";
  if (c.basis == DecisionBasis::single_value) text += " (single value)";
  if (!c.disturbed.empty()) text += " (disturbed)";
  return text;
}

std::string ci_header(const CompareResult& r) { return fmt::format("{:g}% CI", (1 - r.options.alpha) * 100); }

bool run_level(const CompareResult& r) { return r.base.runs > 1; }

Row header_row(const CompareResult& r) {
  if (run_level(r))
    return {"config",  "runs base/new", "BASE median of runs (p10-p90, cv)", "NEW median of runs (p10-p90, cv)",
            "change",  ci_header(r),     "p-value",
            "verdict"};
  return {"config",  "n base/new", "BASE median (p10-p90, cv)", "NEW median (p10-p90, cv)", "change", ci_header(r),
          "p-value", "verdict"};
}

Row config_row(const ConfigComparison& c, const CompareMetric& metric) {
  const std::optional<double> change = c.shown_change();
  return {one_line(c.config_id),
          fmt::format("{}/{}", c.base.count, c.next.count),
          side_text(c.base, metric),
          side_text(c.next, metric),
          change ? signed_percent(*change) : "n/a",
          c.shift ? fmt::format("[{}, {}]", signed_percent(c.shift->low), signed_percent(c.shift->high)) : "-",
          c.p_value ? p_text(*c.p_value) : "-",
          verdict_text(c)};
}

// " (5 runs; gpubench 0.1.0, commit abc)", " (gpubench 0.1.0)", or "" when the report
// does not say and there is one run. On one line: the version and commit are the report's.
std::string provenance(const ReportInfo& info) {
  std::string runs = info.runs > 1 ? fmt::format("{} runs", info.runs) : "";
  if (info.tool_version.empty() && info.git_commit.empty()) return runs.empty() ? "" : " (" + runs + ")";
  return one_line(fmt::format(" ({}{}gpubench {}{}{})", runs, runs.empty() ? "" : "; ",
                              info.tool_version.empty() ? "?" : info.tool_version,
                              info.git_commit.empty() ? "" : ", commit ", info.git_commit));
}

std::string metric_line(const CompareResult& r) {
  return fmt::format("metric {} ({}, {} is better), threshold {:g}%, alpha {:g}", r.metric.name, r.metric.unit,
                     r.metric.higher_is_better ? "higher" : "lower", r.options.threshold * 100, r.options.alpha);
}

std::string rule_line(const CompareResult& r) {
  if (run_level(r))
    return fmt::format(
        "Rule: one value per run ({}); regression when {} t-test on the log run values gives p < {:g} "
        "and the worse end of the {} of the change reaches {:g}% worse; improvement likewise; otherwise no change. "
        "The change is the geometric mean ratio NEW/BASE{}. The spread between whole runs is the noise judged "
        "here{}.",
        r.metric.kind == MetricKind::single_value ? "the value itself" : "the median of its steps",
        r.options.paired ? "a paired (run i of BASE with run i of NEW)" : "Welch's", r.options.alpha, ci_header(r),
        r.options.threshold * 100, r.options.paired ? " over the pairs" : "",
        r.options.paired ? ", and pairs that ran back to back share the machine's drift"
                         : "; a shift of the machine between when BASE and when NEW ran is not (pair the runs "
                           "in one job for that: --paired)");
  if (r.metric.kind == MetricKind::single_value)
    return fmt::format(
        "Rule: one value per run, so no statistical test: regression when NEW/BASE is at least {:g}% "
        "worse, improvement when at least {:g}% better.",
        r.options.threshold * 100, r.options.threshold * 100);
  return fmt::format(
      "Rule: regression when the two-sided Mann-Whitney U test on the per-step samples gives p < {:g} and the {} of "
      "the change (Hodges-Lehmann) reaches {:g}% worse; improvement likewise; otherwise no change. Configs with "
      "fewer than {} samples on a side are decided on the median change alone (threshold only). One run a side "
      "shows only the noise within a run; where whole runs differ more (shared machines), compare directories "
      "of several runs a side.",
      r.options.alpha, ci_header(r), r.options.threshold * 100, r.options.min_samples);
}

std::string summary_line(const CompareResult& r) {
  const std::size_t unchanged = r.configs.size() - r.regressions - r.improvements;
  std::string line = fmt::format("{} regression{}, {} improvement{}, {} unchanged ({} compared)", r.regressions,
                                 r.regressions == 1 ? "" : "s", r.improvements, r.improvements == 1 ? "" : "s",
                                 unchanged, r.configs.size());
  if (r.disturbed_regressions > 0)
    line += fmt::format("; {} of the regressions measured on a disturbed machine{}", r.disturbed_regressions,
                        r.uncounted_regressions == 0 ? " (counted: --on-disturbed count)"
                        : r.retry                    ? ", not counted: measure again (--on-disturbed retry, exit 5)"
                                                     : ", not counted (--on-disturbed ignore)");
  return line;
}

// Where a side was disturbed while a config measured (interference), config by config.
std::vector<std::string> disturbed_lines(const CompareResult& r) {
  std::vector<std::string> lines;
  for (const ConfigComparison& c : r.configs)
    for (const std::string& where : c.disturbed) lines.push_back(c.config_id + ": " + where);
  return lines;
}

// Reasons worth reading: every verdict other than "no change", every threshold-only
// decision, every significant change the threshold tolerated.
std::vector<std::string> notes(const CompareResult& r) {
  std::vector<std::string> lines;
  for (const ConfigComparison& c : r.configs)
    if (c.verdict != Verdict::no_change || c.basis == DecisionBasis::threshold_only ||
        (c.basis != DecisionBasis::single_value && c.p_value && *c.p_value < r.options.alpha))
      lines.push_back(c.config_id + ": " + c.reason);
  return lines;
}

std::string format_table(const CompareResult& r, std::size_t columns) {
  std::vector<Row> rows{header_row(r)};
  for (const ConfigComparison& c : r.configs) rows.push_back(config_row(c, r.metric));
  std::vector<FitColumn> table = columns_from_rows(rows);
  // The short form of each side: its median alone.
  for (const std::size_t side : {2u, 3u}) {
    table[side].short_header = side == 2 ? "BASE" : "NEW";
    for (const ConfigComparison& c : r.configs)
      table[side].short_cells.push_back(value_text(side == 2 ? c.base.median : c.next.median, r.metric));
  }
  using A = FitStep::Action;
  const std::vector<FitStep> steps = {{1, A::Drop}, {2, A::Shorten}, {3, A::Shorten}, {6, A::Drop}, {5, A::Drop}};

  std::string out = wrap_text("gpubench compare: " + metric_line(r), columns);
  // Whole, not wrapped: a path a user copies.
  out += "BASE " + one_line(r.base.name) + provenance(r.base) + "\nNEW  " + one_line(r.next.name) + provenance(r.next) +
         "\n\n";
  out += fit_table(table, steps, columns);
  const auto section = [&out, columns](const std::string& title, const std::vector<std::string>& lines) {
    if (lines.empty()) return;
    out += "\n" + title + ":\n";
    // Each item quotes the reports (reasons, run names, environment values): one line each.
    for (const std::string& line : lines) out += wrap_text(one_line(line), columns, "  ");
  };
  section("Notes", notes(r));
  section("Only in BASE (not compared)", r.only_in_base);
  section("Only in NEW (not compared)", r.only_in_next);
  std::vector<std::string> skipped;
  for (const NotCompared& n : r.not_compared) skipped.push_back(n.config_id + ": " + n.reason);
  section("Not compared", skipped);
  section("Warnings (the comparison may be doubtful)", r.warnings);
  section("Measured on a disturbed machine (docs/measurement.md)", disturbed_lines(r));
  out += "\n" + wrap_text(rule_line(r), columns);
  out += wrap_text("Result: " + summary_line(r), columns);
  return out;
}

std::string format_markdown(const CompareResult& r) {
  std::string out = fmt::format("### gpubench compare: {}\n\n", r.regression ? "regression found"
                                                                 : r.retry    ? "measure again (disturbed)"
                                                                              : "no regression");
  out += metric_line(r) + "  \n";  // ours: a metric compare knows, numbers
  // Paths as escaped text, not code spans: a backtick in a file name would end the span.
  out += "BASE " + markdown_text(r.base.name + provenance(r.base)) + "  \n";
  out += "NEW " + markdown_text(r.next.name + provenance(r.next)) + "\n\n";
  const Row header = header_row(r);
  out += "| " + fmt::format("{}", fmt::join(header, " | ")) + " |\n|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const ConfigComparison& c : r.configs) {
    Row row = config_row(c, r.metric);
    for (std::string& cell : row) cell = markdown_text(cell);
    row[0] = "`" + c.config_id + "`";  // a config id (report_loader checked its characters)
    if (c.verdict != Verdict::no_change) row.back() = "**" + row.back() + "**";
    out += "| " + fmt::format("{}", fmt::join(row, " | ")) + " |\n";
  }
  const auto section = [&out](const std::string& title, const std::vector<std::string>& lines, bool code) {
    if (lines.empty()) return;
    out += "\n**" + title + "**\n\n";
    for (const std::string& line : lines) out += "- " + (code ? "`" + line + "`" : markdown_text(line)) + "\n";
  };
  section("Notes", notes(r), false);
  section("Only in BASE (not compared)", r.only_in_base, true);
  section("Only in NEW (not compared)", r.only_in_next, true);
  std::vector<std::string> skipped;
  for (const NotCompared& n : r.not_compared) skipped.push_back(n.config_id + ": " + n.reason);
  section("Not compared", skipped, false);
  section(":warning: Warnings (the comparison may be doubtful)", r.warnings, false);
  section("Measured on a disturbed machine", disturbed_lines(r), false);
  out += "\n" + rule_line(r) + "\n\n**Result:** " + summary_line(r) + "\n";
  return out;
}

}  // namespace

std::string format_compare(const CompareResult& result, const std::string& format, std::size_t columns) {
  // A report is untrusted input (a CI artifact): none of its bytes reach a terminal raw.
  if (format == "table") return printable(format_table(result, columns));
  if (format == "markdown") return printable(format_markdown(result));
  if (format == "json") return json_text(result.json, 2) + "\n";
  throw UsageError("unknown --format '" + format + "': expected table, markdown or json");
}

}  // namespace gpubench
