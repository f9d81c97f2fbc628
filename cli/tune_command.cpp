#include "cli/tune_command.h"

#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "cli/matrix_command.h"
#include "cli/output_rules.h"
#include "cli/terminal_columns.h"
#include "core/config/errors.h"
#include "core/config/stack_parts.h"
#include "core/device/env_record.h"
#include "core/io/atomic_file.h"
#include "core/io/interrupt.h"
#include "core/io/json_text.h"
#include "core/io/printable.h"
#include "reports/comparisons.h"
#include "reports/report.h"
#include "reports/report_format.h"
#include "harness/run/capability.h"
#include "harness/run/child_process.h"
#include "harness/run/config_sizes.h"
#include "harness/run/matrix_runner.h"
#include "harness/run/tune_search.h"
#include "workloads/workload.h"
#include "core/io/byte_units.h"

namespace gpubench {
namespace {

constexpr int kShortWindowSteps = 10;  // a candidate's short window when --steps is not given

DeviceKind tune_device(const CliOptions& options, const MachineCapabilities& machine) {
  if (options.tune_device == "cpu") return DeviceKind::Cpu;
  const auto cuda_reason = skip_reason(plain_config(options.tune_workload, DeviceKind::Cuda), machine);
  if (options.tune_device == "cuda" && cuda_reason)
    throw UsageError("tune --device cuda: this machine cannot run cuda configs (" + *cuda_reason + ")");
  return cuda_reason ? DeviceKind::Cpu : DeviceKind::Cuda;
}

// What greedy selection may add on this device, in the order it tries them.
std::vector<std::string> candidate_parts(DeviceKind device, const MachineCapabilities& machine) {
  std::vector<std::string> parts;
  if (device == DeviceKind::Cpu) {
    // Without bf16 units LibTorch's CPU bf16 matmuls take a slow path: not a candidate.
    if (machine.cpu_bf16_units) parts.push_back("bf16");
    parts.insert(parts.end(), {"adam-foreach", "adam-fused", "channels-last"});
    // The ranks to shard over: DDP, and the sharded modes that keep less a rank (zero2
    // moves what zero1 does and holds less; fsdp holds the least), which fit where DDP
    // or one process does not.
    if (machine.cpu_cores >= 2) parts.insert(parts.end(), {"ddp-2", "zero2-2", "fsdp-2"});
    return parts;
  }
  parts = {"amp-bf16", "amp-fp16", "tf32", "fp8", "adam-foreach", "adam-fused", "channels-last", "graph"};
  if (machine.cuda.device_count > 1)
    for (const char* mode : {"ddp-", "zero2-", "fsdp-"}) parts.push_back(mode + std::to_string(machine.cuda.device_count));
  return parts;
}

double default_budget_bytes(DeviceKind device, const MachineCapabilities& machine) {
  if (device == DeviceKind::Cuda && !machine.cuda.devices.empty())
    return static_cast<double>(machine.cuda.devices.front().memory_bytes);
  return machine.host_available_bytes;  // detect_capabilities read host_memory_limit()
}

// Runs one candidate in its own child process, as the matrix runs a config.
TuneMeasure child_measure(const CliOptions& options, const MachineCapabilities& machine) {
  return [&options, &machine](const Config& config, std::int64_t batch, TuneWindow window) {
    MatrixRun run;
    run.configs = {config};
    run.settings = options.settings;
    run.settings.batch_size = static_cast<int>(batch);
    if (window == TuneWindow::Short && options.settings.steps == 0) {
      run.settings.steps = kShortWindowSteps;
      if (options.settings.warmup < 0) run.settings.warmup = 2;
    }
    run.machine = machine;
    run.child_command = {self_executable()};
    for (const auto& arg : settings_to_args(run.settings)) run.child_command.push_back(arg);
    nlohmann::json row = run_matrix(run, [](std::size_t, const nlohmann::json&) {}).results.front();
    std::cerr << fmt::format("[tune] {:<48} batch {:<6} {}", config.id(), batch, row.value("status", "?"));
    if (row.value("status", "") == "ok")
      std::cerr << fmt::format("  {} samples/s", format_rate(row["throughput"]["samples_per_s"].value("median", 0.0)));
    else
      std::cerr << "  " << one_line(row.value("reason", ""));
    std::cerr << std::endl;
    return row;
  };
}

nlohmann::json step_json(const TuneStep& step) {
  const nlohmann::json& row = step.row;
  nlohmann::json out = {{"phase", step.phase},  {"round", step.round},          {"config_id", step.config.id()},
                        {"batch_size", step.batch_size}, {"status", row.value("status", "")}, {"outcome", step.outcome},
                        {"memory_bytes", tune_row_memory(row)}};
  if (row.value("status", "") == "ok") out["samples_per_s"] = row["throughput"]["samples_per_s"].value("median", 0.0);
  return out;
}

nlohmann::json tune_report(const CliOptions& options, const TuneOptions& tune, const TuneResult& result,
                           const MachineCapabilities& machine, const std::string& command_line, int threads) {
  std::vector<nlohmann::json> rows;
  nlohmann::json ids = nlohmann::json::array(), steps = nlohmann::json::array();
  for (const auto& step : result.steps) {
    rows.push_back(step.row);
    ids.push_back(step.config.id());
    steps.push_back(step_json(step));
  }
  const nlohmann::json matrix = {{"spec", "tune " + tune.workload},
                                 {"preset", to_string(options.settings.preset)},
                                 {"workloads", {tune.workload}},
                                 {"seed", options.settings.seed},
                                 {"threads", threads},
                                 {"config_ids", ids}};
  nlohmann::json report = build_report(record_environment(machine.cuda), matrix, rows, command_line, nlohmann::json());
  // The rows repeat ids at other batches: the one comparison is the winner's margin.
  report["comparisons"] = nlohmann::json::array();
  if (result.winner && result.runner_up)
    report["comparisons"].push_back(compare_rows("tune_margin", result.steps[*result.runner_up].row, result.steps[*result.winner].row));
  report["tune"] = {{"workload", tune.workload},
                    {"device", to_string(tune.device)},
                    {"memory_budget_bytes", tune.memory_budget_bytes},
                    {"candidate_parts", tune.parts},
                    {"steps", steps},
                    {"summary", result.summary}};
  if (!result.stopped.empty()) report["tune"]["stopped"] = result.stopped;
  if (result.winner) report["tune"]["winner"] = step_json(result.steps[*result.winner]);
  if (result.runner_up) {
    report["tune"]["runner_up"] = step_json(result.steps[*result.runner_up]);
    report["tune"]["margin"] = result.margin;
    if (result.margin_ci95) report["tune"]["margin_ci95"] = {result.margin_ci95->first, result.margin_ci95->second};
  }
  return report;
}

// Each step's outcome (why it was kept or left) on its own line under it, fitted to the terminal.
std::string steps_table(const TuneResult& result, std::size_t width) {
  std::vector<std::vector<std::string>> rows = {{"phase", "config", "batch", "samples/s", "memory"}};
  std::vector<std::vector<std::string>> outcomes;
  for (const auto& step : result.steps) {
    const nlohmann::json s = step_json(step);
    rows.push_back({step.phase + " " + std::to_string(step.round), step.config.id(), std::to_string(step.batch_size),
                    s.contains("samples_per_s") ? format_rate(s["samples_per_s"].get<double>()) : s["status"].get<std::string>(),
                    format_bytes(s["memory_bytes"].get<double>())});
    outcomes.push_back({one_line(step.outcome)});  // quotes a child's reason
  }
  return fit_table(columns_from_rows(rows), {{0, FitStep::Action::Drop}, {4, FitStep::Action::Drop}}, width, outcomes);
}

}  // namespace

int run_tune_command(const CliOptions& given, const std::string& command_line) {
  CliOptions options = given;
  if (!options.out_given) options.out = "gpubench-tune.json";
  const int threads = apply_thread_setting(options.settings.threads);
  const auto workload = make_workload(options.tune_workload);  // UsageError for an unknown name
  const MachineCapabilities machine = detect_capabilities();
  check_outputs(options);
  const std::vector<OutputLock> output_locks = lock_outputs(options);  // held until the search is written

  TuneOptions tune;
  tune.workload = options.tune_workload;
  tune.traits = workload->traits();
  tune.device = tune_device(options, machine);
  tune.parts = candidate_parts(tune.device, machine);
  const ResolvedSizes sizes = resolve_sizes(plain_config(tune.workload, tune.device), options.settings);
  tune.default_batch = sizes.batch_size;
  tune.max_batch = sizes.dataset_samples;
  tune.memory_budget_bytes =
      options.tune_memory_budget_gib > 0 ? options.tune_memory_budget_gib * kGiB : default_budget_bytes(tune.device, machine);
  tune.skip_reason = [&machine](const Config& config) { return skip_reason(config, machine); };
  // A signal stops the running candidate (as in the matrix) and then the search.
  tune.stop_reason = [] { return interrupt_signal() != 0 ? "interrupted (" + interrupt_signal_name() + ")" : std::string(); };
  std::cerr << fmt::format("tune {} on {}: {} candidate parts ({}), memory budget {}", tune.workload, to_string(tune.device),
                           tune.parts.size(), fmt::join(tune.parts, ", "), format_bytes(tune.memory_budget_bytes))
            << std::endl;

  install_interrupt_handlers();
  const TuneResult result = tune_search(tune, child_measure(options, machine));
  const nlohmann::json report = tune_report(options, tune, result, machine, command_line, threads);
  // The winner line is not wrapped: it is the one line a user copies (id and --batch-size) or greps.
  std::cout << printable(steps_table(result, terminal_columns())) << "\ntune winner: " << printable(result.summary) << "\n"
            << std::flush;
  std::optional<std::string> report_error;
  try {
    write_file_atomically(options.out, json_text(report, 2) + "\n");
    std::cerr << "search written to " << one_line(options.out) << std::endl;
  } catch (const std::exception& error) {
    report_error = error.what();
    std::cerr << "gpubench: error: report not written: " << one_line(*report_error) << std::endl;
  }
  if (const int signal = interrupt_signal(); signal != 0) {
    std::cerr << "gpubench: interrupted by " << interrupt_signal_name()
              << ": the running candidate was stopped, the search was not finished" << std::endl;
    return 128 + signal;
  }
  if (report_error) return kExitOutputNotWritten;
  return result.winner ? 0 : 1;
}

}  // namespace gpubench
