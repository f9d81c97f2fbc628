#pragma once
// A report in the formats of two continuous-benchmarking services, so a CI job can track
// gpubench's numbers there (`gpubench report R.json --bencher FILE --github-benchmark FILE`).
// One entry per ok row; skipped and failed rows are left out (they have no numbers).
#include <nlohmann/json.hpp>
#include <string>

namespace gpubench {

// Bencher Metric Format (https://bencher.dev/docs/reference/bencher-metric-format):
//   {"<config_id>": {"<measure>": {"value": median, "lower_value": p10, "upper_value": p90}}}
// Measures (slugs Bencher creates on first upload): samples-per-s, tokens-per-s (token
// workloads), tflops-per-s (model FLOP/s), step-ms, each median [p10, p90] over the measured
// steps; host-peak-rss-bytes, cuda-peak-allocated-bytes, cuda-peak-reserved-bytes (one
// value a run). Throws UsageError naming `name` when no row is ok (an upload of nothing
// would look like a run that measured nothing).
nlohmann::json bencher_metric_format(const nlohmann::json& report, const std::string& name);

// github-action-benchmark's `tool: customBiggerIsBetter` input
// (https://github.com/benchmark-action/github-action-benchmark, src/extract.ts BenchmarkResult):
//   [{"name": "<config_id> samples/s", "unit": "samples/s", "value": median,
//     "range": "± d", "extra": "p10 ..., p90 ..., n steps; ..."}]
// for samples/s and, where measured, tokens/s: the bigger-is-better numbers. `range` is a
// string there, symmetric, so it carries the larger distance of p10 or p90 from the median
// and `extra` the exact p10 and p90. Throws UsageError as above.
nlohmann::json github_benchmark_bigger_is_better(const nlohmann::json& report, const std::string& name);

// The same action's `tool: customSmallerIsBetter` input: per ok row "<id> step time" (ms,
// the median step with its p10/p90 as above) and the memory peaks measured, "<id> host peak
// RSS" and, on a GPU, "<id> CUDA peak allocated" (MiB, one value a run: no range). A step
// that got slower or a peak that grew is what the action flags. Throws UsageError as above.
nlohmann::json github_benchmark_smaller_is_better(const nlohmann::json& report, const std::string& name);

}  // namespace gpubench
