#pragma once
#include <string>
#include <vector>

#include "cli/report_command.h"
#include "core/config/run_settings.h"

namespace gpubench {

// Everything the command line says, validated. Parsing never runs anything.
struct CliOptions {
  enum class Command { Matrix, List, Rules, Version, Help, Child, ProbeModel, Compare, Tune, Report };
  Command command = Command::Matrix;
  std::string help_text;

  std::string matrix_spec = "all";
  std::vector<std::string> workloads;  // empty = all
  RunSettings settings;
  std::string out = "gpubench-report.json";
  std::string trace;   // Chrome trace-event file for every config's host (and device) spans
  std::string ceilings;  // gpubench-bench ceilings file: rows say how close they get
  std::string format;  // empty = table on a TTY, json otherwise
  bool strict = false;
  int nproc = 0;  // --nproc N: start N ranks of this command here (0: run as one process)
  int accumulate = 1;  // --accumulate K: micro-batches per optimizer step for every config
  std::string assume_gpus;  // --list --assume-gpus NxSIZE: plan for GPUs this machine lacks (cli/gpu_plan.h)

  // Hidden: set by the parent when it re-executes itself for one config, or to probe one
  // TorchScript --model (cli/model_probe.h).
  std::string child_config, child_result, child_probe_model;

  // compare BASE NEW (each a report or a directory of runs)
  std::string compare_base, compare_new, compare_threshold = "5%", compare_metric = "samples_per_s";
  std::string compare_alpha = "0.01";
  bool compare_paired = false;
  std::string compare_on_disturbed = "count";

  // tune WORKLOAD [--memory-budget GIB] [--device cpu|cuda] (run settings flags apply too)
  std::string tune_workload, tune_device;
  double tune_memory_budget_gib = 0;  // 0: what the device has free
  bool out_given = false;             // --out named (tune's default file differs)

  // compare --junit FILE: the comparison as JUnit XML as well (reports/export/junit_export.h)
  std::string compare_junit;
  // report REPORT | BASE NEW | --history FOLDER, with --html/--bencher/--github-benchmark
  ReportCommandOptions report;
};

// Throws UsageError (exit code 2) naming the bad flag/value and what was expected.
CliOptions parse_command_line(int argc, const char* const* argv);

// The settings flags that reproduce `settings` in a child process.
std::vector<std::string> settings_to_args(const RunSettings& settings);

// Parses a whole number in [min, max] for `flag`; throws UsageError otherwise.
long long parse_integer(const std::string& flag, const std::string& text, long long min, long long max);

// Parses a decimal in [min, max] for `flag` (plain decimal text: no hex, inf or nan);
// `unit` says what it counts in the message ("seconds"). Throws UsageError otherwise.
double parse_decimal(const std::string& flag, const std::string& text, double min, double max, const std::string& unit);

}  // namespace gpubench
