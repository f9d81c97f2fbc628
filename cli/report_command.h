#pragma once
// `gpubench report`: a report, a comparison or a history drawn as one self-contained HTML
// page, and a report exported for continuous-benchmarking services. What the arguments
// mean decides the kind:
//   gpubench report REPORT.json [--html F] [--bencher F] [--github-benchmark F] [--github-benchmark-smaller F]
//       one report: environment, every row, charts (throughput, phases, memory, what each
//       technique bought, ablations, loss curves); the exports take one report only;
//   gpubench report BASE NEW --html F [--threshold P] [--alpha A] [--paired] [--metric M]
//       BASE and NEW each a report or a folder of runs: what `gpubench compare BASE NEW`
//       decides, per metric, with both distributions, the shift and its interval;
//   gpubench report --history FOLDER --html F [--threshold P] [--alpha A]
//       every report in FOLDER in created_utc order: trend lines per config and metric, the
//       points compare calls a regression against the previous report marked.
// A single folder without --history is refused (a history, or one side of a comparison?).
// Exit codes: 0 written (whatever compare decides: `gpubench compare` is the CI gate);
// 2 bad input (UsageError: arguments, a report, no Chart.js in this build); 4 a file could
// not be written.
#include <string>
#include <vector>

namespace gpubench {

struct ReportCommandOptions {
  std::vector<std::string> inputs;  // REPORT, BASE NEW, or the --history FOLDER
  bool history = false;
  std::string html, bencher, github_benchmark, github_benchmark_smaller;  // empty: not written
  // As `gpubench compare` takes them; empty: compare's defaults (5%, 0.01, samples_per_s).
  std::string threshold, alpha, metric;
  bool paired = false;
};

int run_report_command(const ReportCommandOptions& options);

}  // namespace gpubench
