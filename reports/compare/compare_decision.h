#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "reports/compare/compare_metric.h"
#include "core/stats/relative_shift.h"
#include "core/stats/summary.h"

namespace gpubench {

// The --alpha range where the tests work. Above 0.5 a "significant" change is a coin
// toss; below 1e-4 the U test needs 9 or more steps a side to reach alpha at all
// (2 / C(18, 9) = 4e-5) and the t-tests' intervals reach quantiles the run counts cannot
// support, so a stricter alpha would send configs to the threshold-only rule and call
// more regressions, not fewer.
constexpr double kMinAlpha = 1e-4;
constexpr double kMaxAlpha = 0.5;

struct CompareOptions {
  // Smallest relative change of the metric that counts (0.05 = 5%); 0 <= threshold < 1.
  double threshold = 0.05;
  // One of compare_metrics(): samples_per_s, step_ms, host_peak_rss_bytes, cuda_peak_allocated_bytes,
  // cuda_peak_reserved_bytes.
  std::string metric = "samples_per_s";
  // Two-sided significance level of the Mann-Whitney U test; the confidence interval of
  // the change is at 1 - alpha. 0.01 keeps A/A false alarms to <= 0.5% per config.
  double alpha = 0.01;
  // Below this many samples on either side the U test is not used (see DecisionBasis).
  std::size_t min_samples = 5;
  // Several runs a side only: run i of BASE and run i of NEW ran back to back (interleaved
  // in one job), so they are compared as pairs (see compare_runs).
  bool paired = false;
  // --on-disturbed: what a regression decided while either side's machine was disturbed
  // (its row's interference verdict: other processes took the CPU) does to the result.
  //   count   it counts as any regression (exit 1), marked disturbed;
  //   ignore  it is shown, marked, and not counted;
  //   retry   not counted either, and when it is the only kind of regression the result
  //           asks for another run (compare exits 5, docs/ci.md): CI measures again.
  enum class OnDisturbed { count, ignore, retry };
  OnDisturbed on_disturbed = OnDisturbed::count;
};

const char* to_string(CompareOptions::OnDisturbed policy);
// "count", "ignore" or "retry"; throws UsageError naming --on-disturbed otherwise.
CompareOptions::OnDisturbed parse_on_disturbed(const std::string& text);

enum class Verdict { no_change, regression, improvement };

// How the verdict was reached.
//  u_test:         per-step samples, enough of them: the U test and the threshold.
//  threshold_only: fewer than min_samples on a side, or so few that the U test cannot
//                  reach alpha at all (2 / C(n_base + n_new, n_base) >= alpha): the
//                  relative change of medians against the threshold alone.
//  single_value:   a one-number metric (peak memory): NEW / BASE - 1 against the
//                  threshold, no statistical test.
//  run_t_test:     several runs a side, one value per run: Welch's t-test on log values.
//  paired_run_t_test: several interleaved runs a side, compared pair by pair.
enum class DecisionBasis { u_test, threshold_only, single_value, run_t_test, paired_run_t_test };

struct ConfigComparison {
  std::string config_id;
  Verdict verdict = Verdict::no_change;
  DecisionBasis basis = DecisionBasis::u_test;
  Summary base, next;                   // the metric's values on each side (count, median, p10, p90, cv...)
  std::optional<double> median_change;  // next.median / base.median - 1; empty when base median is 0
  std::optional<RelativeShift> shift;   // NEW vs BASE at 1 - alpha: Hodges-Lehmann (U test) or mean log ratio (runs)
  std::optional<double> p_value;        // two-sided U test (per-step metrics) or t-test (runs)
  std::string reason;                   // one sentence: why this verdict
  // Where either side's machine was disturbed while this config measured: "BASE: other
  // processes took 45% of the CPU during the steps" (a side of several runs names the run).
  std::vector<std::string> disturbed;

  // Whether whole runs decided (a t-test, one value per run a side).
  bool decided_on_runs() const { return basis == DecisionBasis::run_t_test || basis == DecisionBasis::paired_run_t_test; }
  // The change a reader is shown: where runs decided, the t-test's estimate (mean log
  // ratio, pair by pair when paired), so that it always sits inside its interval; the
  // ratio of medians may not. Elsewhere the ratio of medians less 1.
  std::optional<double> shown_change() const {
    return decided_on_runs() && shift ? std::optional<double>(shift->estimate) : median_change;
  }
};

// The decision rule, for one config (values of `metric` on each side, all > 0 for per-step
// metrics). "Worse" is lower for samples_per_s, higher for step_ms and memory; changes
// are relative (NEW / BASE - 1). Per-step metrics with enough samples:
//   regression  iff  p < alpha (two-sided U test)  AND  the Hodges-Lehmann shift is worse
//                    AND  the worse end of its (1 - alpha) confidence interval is at least
//                    `threshold` worse;
//   improvement iff  the mirror image;  otherwise no change.
// Why the interval end and not the point estimate: "--threshold 5%" is meant to catch a
// real 5% slowdown. A point-estimate rule (median worse by >= 5%) catches a true 5% shift
// only about half of the time, since the estimate falls below 5% half of the time (the
// tests measure this). Here a significant change is tolerated only when the data shows it
// is smaller than the threshold, and nothing is flagged unless the U test says it is not
// noise: under A/A (no real change) at most alpha / 2 of configs are flagged as
// regressions, whatever the threshold. The price: a real change somewhat below the
// threshold may be flagged when the samples are too noisy to show that it is below (e.g.
// a real 3% slowdown at CV 3%, 40 steps a side: ~35%); the output shows the interval, so
// a reader sees why.
// See DecisionBasis for the threshold-only and single-value rules (change >= threshold).
ConfigComparison compare_values(const std::string& config_id, const std::vector<double>& base,
                                const std::vector<double>& next, const CompareMetric& metric,
                                const CompareOptions& options);

// Several runs a side (BASE and NEW each a directory of reports of the same matrix): one
// value per run (its median for per-step metrics, the value for single-value ones), at
// least 2 a side (2 pairs when options.paired, and then base_runs[i] pairs next_runs[i]).
// Decided by log_t_test with the same rule as the U test above: p < alpha, and the
// interval's worse end reaching the threshold. Why: the per-step U test sees only the
// noise within one run, while on shared machines whole runs drift (measured here: the
// same build, minutes apart, up to 25%); only several runs a side show that noise, and
// only interleaved pairs cancel it. Summaries (base, next) are over the run values.
// Throws std::invalid_argument on fewer runs than that (callers check).
ConfigComparison compare_runs(const std::string& config_id, const std::vector<double>& base_runs,
                              const std::vector<double>& next_runs, const CompareMetric& metric,
                              const CompareOptions& options);

const char* to_string(Verdict verdict);      // "no_change", "regression", "improvement"
// "u_test", "threshold_only", "single_value", "run_t_test", "paired_run_t_test"
const char* to_string(DecisionBasis basis);

// A change as the verdicts print it ("+3.2%", "n/a" when not finite), and a p-value.
std::string signed_percent(double fraction);
std::string p_text(double p);

}  // namespace gpubench
