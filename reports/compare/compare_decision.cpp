#include "reports/compare/compare_decision.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/config/errors.h"
#include "core/stats/log_t_test.h"
#include "core/stats/mann_whitney.h"

namespace gpubench {
namespace {

std::string percent(double fraction) { return fmt::format("{:g}%", fraction * 100); }

// Verdict from a relative change alone: worse / better by at least the threshold.
Verdict verdict_from_change(double worse_by, double threshold) {
  if (worse_by >= threshold && worse_by > 0) return Verdict::regression;
  if (-worse_by >= threshold && worse_by < 0) return Verdict::improvement;
  return Verdict::no_change;
}

// `what` names the compared values in the reason.
void decide_single_value(ConfigComparison& c, double worse_sign, const CompareOptions& options,
                         const char* what = "single value per run") {
  c.basis = DecisionBasis::single_value;
  const double base = c.base.median, next = c.next.median;
  if (base == 0) {
    c.verdict = next == 0 ? Verdict::no_change : (worse_sign > 0 ? Verdict::regression : Verdict::improvement);
    c.reason = next == 0 ? "single value: 0 on both sides" : "single value: BASE is 0, NEW is not";
    return;
  }
  const double change = *c.median_change;
  c.verdict = verdict_from_change(worse_sign * change, options.threshold);
  c.reason = fmt::format("{}: NEW/BASE changed {} against the {} threshold, no statistical test", what,
                         signed_percent(change), percent(options.threshold));
}

void decide_threshold_only(ConfigComparison& c, double worse_sign, const CompareOptions& options) {
  c.basis = DecisionBasis::threshold_only;
  c.reason = fmt::format(
      "too few samples ({} BASE, {} NEW) for the U test to reach alpha {}: decided on the median change {} "
      "against the {} threshold alone",
      c.base.count, c.next.count, options.alpha,
      c.median_change ? signed_percent(*c.median_change) : std::string("n/a"), percent(options.threshold));
  if (c.median_change) c.verdict = verdict_from_change(worse_sign * *c.median_change, options.threshold);
}

// The U test's and the run t-tests' shared rule (see compare_values): significant, and the
// interval's worse (better) end reaching the threshold.
void decide_by_test(ConfigComparison& c, double worse_sign, const CompareOptions& options, DecisionBasis basis) {
  c.basis = basis;
  const RelativeShift& s = *c.shift;
  const double p = *c.p_value;
  // "Worse by" amounts: positive = NEW worse.
  const double worse_estimate = worse_sign * s.estimate;
  const double worst_end = worse_sign > 0 ? s.high : -s.low;  // most-worse end of the interval
  const double best_end = worse_sign > 0 ? -s.low : s.high;   // most-better end, as "better by"
  const std::string interval =
      fmt::format("{:g}% CI [{}, {}]", (1 - options.alpha) * 100, signed_percent(s.low), signed_percent(s.high));
  if (!(p < options.alpha)) {
    c.reason = fmt::format("p = {} >= alpha {}: the difference is within the {}noise", p_text(p), options.alpha,
                           basis == DecisionBasis::u_test ? "" : "run-to-run ");
    return;
  }
  if (worse_estimate > 0 && worst_end >= options.threshold) {
    c.verdict = Verdict::regression;
    c.reason = fmt::format("p = {} < {} and the {} reaches the {} threshold on the worse side", p_text(p),
                           options.alpha, interval, percent(options.threshold));
  } else if (worse_estimate < 0 && best_end >= options.threshold) {
    c.verdict = Verdict::improvement;
    c.reason = fmt::format("p = {} < {} and the {} reaches the {} threshold on the better side", p_text(p),
                           options.alpha, interval, percent(options.threshold));
  } else {
    c.reason = fmt::format("significant (p = {}) but the {} stays within the {} threshold", p_text(p), interval,
                           percent(options.threshold));
  }
}

// Both sides summarized, and the change of medians.
ConfigComparison summarized(const std::string& config_id, const std::vector<double>& base,
                            const std::vector<double>& next) {
  ConfigComparison c;
  c.config_id = config_id;
  c.base = summarize(base);
  c.next = summarize(next);
  if (c.base.median != 0) c.median_change = c.next.median / c.base.median - 1;
  return c;
}

// The sign of a change for the worse: lower samples/s, higher step time or memory.
double worse_sign_of(const CompareMetric& metric) { return metric.higher_is_better ? -1 : 1; }

}  // namespace

std::string signed_percent(double fraction) {
  return std::isfinite(fraction) ? fmt::format("{:+.1f}%", fraction * 100) : "n/a";
}

std::string p_text(double p) { return p < 1e-4 ? fmt::format("{:.1e}", p) : fmt::format("{:.4f}", p); }

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::regression:
      return "regression";
    case Verdict::improvement:
      return "improvement";
    case Verdict::no_change:
      break;
  }
  return "no_change";
}

const char* to_string(CompareOptions::OnDisturbed policy) {
  switch (policy) {
    case CompareOptions::OnDisturbed::ignore:
      return "ignore";
    case CompareOptions::OnDisturbed::retry:
      return "retry";
    case CompareOptions::OnDisturbed::count:
      break;
  }
  return "count";
}

CompareOptions::OnDisturbed parse_on_disturbed(const std::string& text) {
  for (const auto policy : {CompareOptions::OnDisturbed::count, CompareOptions::OnDisturbed::ignore,
                            CompareOptions::OnDisturbed::retry})
    if (text == to_string(policy)) return policy;
  throw UsageError("--on-disturbed '" + text + "' is unknown: expected count, ignore or retry");
}

const char* to_string(DecisionBasis basis) {
  switch (basis) {
    case DecisionBasis::threshold_only:
      return "threshold_only";
    case DecisionBasis::single_value:
      return "single_value";
    case DecisionBasis::run_t_test:
      return "run_t_test";
    case DecisionBasis::paired_run_t_test:
      return "paired_run_t_test";
    case DecisionBasis::u_test:
      break;
  }
  return "u_test";
}

ConfigComparison compare_values(const std::string& config_id, const std::vector<double>& base,
                                const std::vector<double>& next, const CompareMetric& metric,
                                const CompareOptions& options) {
  ConfigComparison c = summarized(config_id, base, next);
  const double worse_sign = worse_sign_of(metric);

  if (metric.kind == MetricKind::single_value) {
    decide_single_value(c, worse_sign, options);
    return c;
  }

  const MannWhitneyResult test = mann_whitney_u(base, next);
  c.p_value = test.p_value;
  c.shift = relative_shift(base, next, 1 - options.alpha);

  const bool too_few = std::min(base.size(), next.size()) < options.min_samples ||
                       mann_whitney_min_p_value(base.size(), next.size()) >= options.alpha;
  if (too_few) {
    c.shift.reset();  // at these sizes the "interval" is the whole range of differences
    decide_threshold_only(c, worse_sign, options);
  } else {
    decide_by_test(c, worse_sign, options, DecisionBasis::u_test);
  }
  return c;
}

ConfigComparison compare_runs(const std::string& config_id, const std::vector<double>& base_runs,
                              const std::vector<double>& next_runs, const CompareMetric& metric,
                              const CompareOptions& options) {
  if (base_runs.size() < 2 || next_runs.size() < 2 || (options.paired && base_runs.size() != next_runs.size()))
    throw std::invalid_argument("compare_runs: need at least 2 runs a side (as many a side when paired)");
  ConfigComparison c = summarized(config_id, base_runs, next_runs);
  const double worse_sign = worse_sign_of(metric);
  // A zero (no CUDA memory used on a side) has no log: the medians against the threshold.
  if (*std::min_element(base_runs.begin(), base_runs.end()) <= 0 ||
      *std::min_element(next_runs.begin(), next_runs.end()) <= 0) {
    decide_single_value(c, worse_sign, options, "medians of the runs (a zero has no log, so no t-test)");
    return c;
  }
  const LogTTest test = log_t_test(base_runs, next_runs, 1 - options.alpha, options.paired);
  c.p_value = test.p_value;
  c.shift = test.shift;
  decide_by_test(c, worse_sign, options,
                 options.paired ? DecisionBasis::paired_run_t_test : DecisionBasis::run_t_test);
  return c;
}

}  // namespace gpubench
