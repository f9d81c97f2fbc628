#include "reports/export/junit_export.h"

#include <fmt/format.h>

#include <cmath>

#include "core/io/printable.h"

namespace gpubench {
namespace {

std::string percent(double fraction) {
  return std::isfinite(fraction) ? fmt::format("{:+.2f}%", fraction * 100) : "n/a";
}

// "7868.9" in the metric's unit (MiB for bytes), and that unit.
std::string number_text(double value, const CompareMetric& metric) {
  return fmt::format("{:.6g}", metric.unit == "bytes" ? value / (1024.0 * 1024.0) : value);
}
std::string unit_text(const CompareMetric& metric) { return metric.unit == "bytes" ? "MiB" : metric.unit; }

// "BASE median 7868.9 samples/s (p10 7308.87, p90 8287.2; 10 runs)", "BASE 95.4 MiB".
std::string side_text(const char* role, const Summary& s, const CompareMetric& metric, bool runs) {
  if (metric.kind == MetricKind::single_value && !runs)
    return fmt::format("{} {} {}", role, number_text(s.median, metric), unit_text(metric));
  return fmt::format("{} median {} {} (p10 {}, p90 {}; {} {})", role, number_text(s.median, metric), unit_text(metric),
                     number_text(s.p10, metric), number_text(s.p90, metric), s.count, runs ? "runs" : "steps");
}

// "samples_per_s -12.30% [-15.10%, -9.80%] at 99%, p = 0.0012: BASE median ..., NEW median
// ...; threshold 5%, decided by u_test"
std::string numbers(const ConfigComparison& c, const CompareResult& r) {
  const bool runs = c.decided_on_runs();
  const std::optional<double> change = c.shown_change();
  std::string text = fmt::format("{} {}", r.metric.name, change ? percent(*change) : "n/a");
  if (c.shift)
    text +=
        fmt::format(" [{}, {}] at {:g}%", percent(c.shift->low), percent(c.shift->high), (1 - r.options.alpha) * 100);
  if (c.p_value) text += fmt::format(", p = {:.4g}", *c.p_value);
  text += ": " + side_text("BASE", c.base, r.metric, runs) + ", " + side_text("NEW", c.next, r.metric, runs);
  text += fmt::format("; threshold {:g}%, decided by {}", r.options.threshold * 100, to_string(c.basis));
  return text;
}

std::string attribute(const std::string& name, const std::string& value) {
  return " " + name + "=\"" + xml_escape(value) + "\"";
}

std::string testcase_open(const CompareResult& r, const std::string& config_id) {
  return "    <testcase" + attribute("classname", "gpubench.compare." + r.metric.name) + attribute("name", config_id) +
         " time=\"0\">";
}

std::string skipped_case(const CompareResult& r, const std::string& config_id, const std::string& message) {
  return testcase_open(r, config_id) + "<skipped" + attribute("message", message) + "/></testcase>\n";
}

std::string suite(const CompareResult& r) {
  std::string cases;
  std::size_t failures = 0, skipped = 0, tests = 0;
  for (const ConfigComparison& c : r.configs) {
    ++tests;
    const std::string text = numbers(c, r);
    if (c.verdict == Verdict::regression) {
      ++failures;
      cases += testcase_open(r, c.config_id) + "\n      <failure type=\"regression\"" +
               attribute("message", "regression: " + text) + ">" + xml_escape(c.reason) +
               "</failure>\n    </testcase>\n";
    } else {
      const std::string out = std::string(to_string(c.verdict)) + ": " + text + "\n" + c.reason;
      cases += testcase_open(r, c.config_id) + "<system-out>" + xml_escape(out) + "</system-out></testcase>\n";
    }
  }
  const auto skip = [&](const std::string& config_id, const std::string& message) {
    ++tests;
    ++skipped;
    cases += skipped_case(r, config_id, message);
  };
  for (const NotCompared& n : r.not_compared) skip(n.config_id, "not compared: " + n.reason);
  for (const std::string& id : r.only_in_base) skip(id, "only in BASE: NEW has no result for this config");
  for (const std::string& id : r.only_in_next) skip(id, "only in NEW: no baseline to compare with");
  std::string properties = "    <properties>\n";
  for (const auto& [name, value] : {std::pair<std::string, std::string>{"base", r.base.name},
                                    {"new", r.next.name},
                                    {"metric", r.metric.name},
                                    {"threshold", fmt::format("{:g}", r.options.threshold)},
                                    {"alpha", fmt::format("{:g}", r.options.alpha)},
                                    {"paired", r.options.paired ? "true" : "false"},
                                    {"base_runs", std::to_string(r.base.runs)},
                                    {"new_runs", std::to_string(r.next.runs)}})
    properties += "      <property" + attribute("name", name) + attribute("value", value) + "/>\n";
  properties += "    </properties>\n";
  std::string warnings;
  for (const std::string& w : r.warnings) warnings += "warning: " + w + "\n";
  return fmt::format("  <testsuite{}{} tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"0\">\n",
                     attribute("name", "gpubench compare " + r.metric.name), attribute("id", r.metric.name), tests,
                     failures, skipped) +
         properties + cases + (warnings.empty() ? "" : "    <system-err>" + xml_escape(warnings) + "</system-err>\n") +
         "  </testsuite>\n";
}

}  // namespace

std::string xml_escape(const std::string& text) {
  // printable() shows control bytes (but newline) and bytes that are not UTF-8 as \xNN:
  // what is left is UTF-8 that XML 1.0 can carry, except U+FFFE and U+FFFF.
  const std::string safe = printable(text);
  std::string out;
  out.reserve(safe.size());
  for (std::size_t i = 0; i < safe.size(); ++i) {
    const char c = safe[i];
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else if (c == '\'')
      out += "&apos;";
    else if (c == '\n')
      out += "&#10;";  // kept in attributes too, where a raw newline reads as a space
    else if (c == '\xEF' && i + 2 < safe.size() && safe[i + 1] == '\xBF' &&
             (safe[i + 2] == '\xBE' || safe[i + 2] == '\xBF')) {
      out += safe[i + 2] == '\xBE' ? "\\uFFFE" : "\\uFFFF";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string compare_junit_xml(const CompareResult& result) {
  return compare_junit_xml(std::vector<const CompareResult*>{&result});
}

std::string compare_junit_xml(const std::vector<const CompareResult*>& results) {
  std::size_t tests = 0, failures = 0, skipped = 0;
  std::string suites;
  for (const CompareResult* r : results) {
    tests += r->configs.size() + r->not_compared.size() + r->only_in_base.size() + r->only_in_next.size();
    failures += r->regressions;
    skipped += r->not_compared.size() + r->only_in_base.size() + r->only_in_next.size();
    suites += suite(*r);
  }
  return fmt::format(
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"gpubench compare\" tests=\"{}\" "
             "failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"0\">\n",
             tests, failures, skipped) +
         suites + "</testsuites>\n";
}

}  // namespace gpubench
