#include "cli/subcommand_flags.h"

#include <CLI/CLI.hpp>

#include "core/config/errors.h"

namespace gpubench {

CLI::App* add_compare_command(CLI::App& app, CliOptions& options) {
  CLI::App* compare = app.add_subcommand("compare", "Compare two reports; exit 1 on a real slowdown, not on noise (docs/ci.md)");
  compare->add_option("BASE", options.compare_base, "Baseline report (JSON), or a directory of runs (*.json)")
      ->required();
  compare->add_option("NEW", options.compare_new, "New report (JSON), or a directory of runs (*.json)")->required();
  compare->add_option("--threshold", options.compare_threshold, "Smallest change that counts, e.g. 5% (default 5%)");
  compare->add_option("--metric", options.compare_metric,
                      "samples_per_s | step_ms | tflops_per_s | host_peak_rss_bytes | cuda_peak_allocated_bytes | "
                      "cuda_peak_reserved_bytes (default samples_per_s)");
  compare->add_option("--alpha", options.compare_alpha, "Two-sided significance level (default 0.01)");
  compare->add_flag("--paired", options.compare_paired,
                    "Directories of runs only: run i of BASE and of NEW ran back to back; compare them pair by pair");
  compare->add_option("--on-disturbed", options.compare_on_disturbed,
                      "count | ignore | retry: a regression measured while either side's machine was disturbed "
                      "(other processes took the CPU) counts (default), is not counted, or is not counted and makes "
                      "compare exit 5 when nothing else regressed, so CI measures again (docs/ci.md)");
  compare->add_option("--format", options.format, "table | markdown | json");
  compare->add_option("--junit", options.compare_junit,
                      "Also write the comparison as JUnit XML: a test case per config, a regression a failure whose "
                      "message gives the numbers, a config not compared (or on one side only) skipped with the reason");
  return compare;
}

CLI::App* add_report_command(CLI::App& app, ReportCommandOptions& options) {
  CLI::App* report = app.add_subcommand(
      "report", "Draw a report, a comparison or a history as one self-contained HTML page (--html), or export a report "
                "for Bencher (--bencher) or github-action-benchmark (--github-benchmark); exit 0 once written (docs/reports.md)");
  report->add_option("INPUT", options.inputs,
                     "REPORT: one report's page and exports. BASE NEW (each a report or a folder of runs): what gpubench "
                     "compare decides, per metric, with both distributions. --history FOLDER: its reports over time")
      ->required()
      ->expected(1, 2);
  report->add_flag("--history", options.history,
                   "INPUT is a folder of reports over time (ordered by created_utc): trend lines per config and metric, "
                   "each report compare calls a regression against the previous one marked");
  report->add_option("--html", options.html, "Write the page here: one file, readable offline (Chart.js inlined)");
  report->add_option("--bencher", options.bencher, "One REPORT: write it here in Bencher Metric Format (JSON), bounds p10/p90");
  report->add_option("--github-benchmark", options.github_benchmark,
                     "One REPORT: write its samples/s (and tokens/s) here for github-action-benchmark's "
                     "customBiggerIsBetter tool");
  report->add_option("--github-benchmark-smaller", options.github_benchmark_smaller,
                     "One REPORT: write its step times and memory peaks here for github-action-benchmark's "
                     "customSmallerIsBetter tool");
  report->add_option("--threshold", options.threshold, "BASE NEW or --history: as gpubench compare's (default 5%)");
  report->add_option("--alpha", options.alpha, "BASE NEW or --history: as gpubench compare's (default 0.01)");
  report->add_option("--metric", options.metric,
                     "BASE NEW: the metric whose verdict the page leads with (default samples_per_s; all are drawn)");
  report->add_flag("--paired", options.paired, "BASE NEW folders of runs: as gpubench compare --paired");
  return report;
}

CLI::App* add_tune_command(CLI::App& app, CliOptions& options, std::string& memory_budget) {
  CLI::App* tune = app.add_subcommand(
      "tune", "Search the techniques and the micro-batch for the highest samples/s within a memory budget; writes the "
              "search as a report (--out, default gpubench-tune.json; docs/techniques.md)");
  tune->fallthrough();  // run settings (--threads, --preset, --steps, --out, ...) come after the workload too
  tune->add_option("WORKLOAD", options.tune_workload, "The workload to tune: a built-in one (mlp, cnn, transformer, resnet50, gpt2, llama, moe) or a --model name")->required();
  tune->add_option("--memory-budget", memory_budget,
                   "GiB a candidate's peak memory may use (GPU: allocator reserved; CPU: the training steps' RSS) "
                   "(default: the GPU's memory, or the host memory available now)");
  tune->add_option("--device", options.tune_device, "cpu | cuda (default: cuda where it runs, else cpu)");
  return tune;
}

void refuse_matrix_flags(const CLI::App& app, const std::string& subcommand, const std::string& usage) {
  for (const CLI::Option* option : app.get_options())
    if (option->count() > 0 && option->get_name() != "--help")
      throw UsageError(option->get_name() + " is a flag of the matrix run, not of " + subcommand + ": expected " + usage);
}

}  // namespace gpubench
