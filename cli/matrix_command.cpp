#include "cli/matrix_command.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/ceilings/ceilings_file.h"
#include "cli/gpu_plan.h"
#include "cli/list_command.h"
#include "cli/output_rules.h"
#include "cli/progress_lines.h"
#include "cli/terminal_columns.h"
#include "core/config/errors.h"
#include "core/config/matrix_spec.h"
#include "core/config/stack_parts.h"
#include "core/device/env_record.h"
#include "core/device/host_malloc.h"
#include "core/io/atomic_file.h"
#include "core/io/interrupt.h"
#include "core/io/printable.h"
#include "core/io/private_dir.h"
#include "harness/parallel/rank_launcher.h"
#include "harness/profile/trace_probe.h"
#include "reports/report.h"
#include "reports/report_format.h"
#include "harness/run/capability.h"
#include "harness/run/checkpoint_plan.h"
#include "harness/run/child_process.h"
#include "harness/run/config_sizes.h"
#include "harness/run/matrix_runner.h"
#include "harness/run/memory_check.h"
#include "workloads/workload.h"
#include "core/io/json_text.h"

namespace gpubench {
namespace {

// Runs `write`; the error text if it threw, nullopt if it wrote.
std::optional<std::string> written_or_error(const std::function<void()>& write) {
  try {
    write();
    return std::nullopt;
  } catch (const std::exception& error) {
    return std::string(error.what());
  }
}

std::vector<std::string> selected_workloads(const CliOptions& options) {
  return options.workloads.empty() ? workload_names() : options.workloads;
}

// What --matrix and --workload ask of this machine: its GPU count and capability, its CPU.
MatrixRequest matrix_request(const CliOptions& options, const MachineCapabilities& machine) {
  MatrixRequest request;
  request.spec = options.matrix_spec;
  request.workloads = selected_workloads(options);
  request.known_workloads = workload_traits(workload_names());
  request.cuda_devices = machine.cuda.device_count;
  if (!machine.cuda.devices.empty()) {
    const GpuInfo& gpu = machine.cuda.devices.front();
    request.cuda_compute_capability = gpu.compute_major * 10 + gpu.compute_minor;
  }
  request.cpu_bf16_units = machine.cpu_bf16_units;
  request.accumulate = options.accumulate;
  return request;
}

// The configs --matrix and --workload name, for this machine.
std::vector<Config> expand_configs(const CliOptions& options, const MachineCapabilities& machine) {
  return expand_matrix(matrix_request(options, machine));
}

// The recipes of the selected workloads here, for the report (ablations are computed from them).
nlohmann::json recipes_json(const CliOptions& options, const MachineCapabilities& machine) {
  nlohmann::json recipes = nlohmann::json::array();
  for (const Recipe& recipe : matrix_recipes(matrix_request(options, machine)))
    recipes.push_back({{"workload", recipe.config.workload},
                       {"device", to_string(recipe.config.device)},
                       {"name", recipe.name},
                       {"config_id", recipe.config.id()},
                       {"baseline", plain_config(recipe.config.workload, recipe.config.device).id()},
                       {"parts", stack_parts(recipe.config)},
                       {"basis", recipe.basis}});
  return recipes;
}

// A bare --data PATH is for the one workload of the matrix that reads real data; every
// --data must name a workload the matrix runs and that reads data.
void resolve_data_paths(RunSettings& settings, const std::vector<std::string>& workloads) {
  auto& paths = settings.data_paths;
  std::vector<std::string> readers;
  for (const auto& name : workloads)
    if (!make_workload(name)->real_data_format().empty()) readers.push_back(name);
  if (const auto bare = paths.find(""); bare != paths.end()) {
    const std::string path = bare->second;
    paths.erase(bare);
    if (readers.size() != 1)
      throw UsageError("--data '" + path + "' names no workload and this matrix runs " +
                       (readers.empty() ? std::string("none that reads data") : fmt::format("several that do ({})", fmt::join(readers, ", "))) +
                       ": expected --data WORKLOAD=PATH (mlp, resnet50 or gpt2)");
    if (paths.count(readers.front()))
      throw UsageError("--data is given twice for " + readers.front() + " ('" + path + "' and '" + paths[readers.front()] + "')");
    paths[readers.front()] = path;
  }
  for (const auto& [name, path] : paths) {
    const auto workload = make_workload(name);
    if (workload->real_data_format().empty())
      throw UsageError("--data " + name + "='" + path + "': " + name + " trains on synthetic data only; real data is for " +
                       "mlp (MNIST IDX files), resnet50 (an ImageFolder tree) or gpt2 (a nanoGPT train.bin)");
    if (std::find(workloads.begin(), workloads.end(), name) == workloads.end())
      throw UsageError("--data " + name + "='" + path + "' is for the " + name + " workload, which this matrix does not run");
  }
}

// Everything that can be wrong with the inputs is found here, before an hour of runs.
void validate_inputs(CliOptions& options, const std::vector<Config>& configs, const MachineCapabilities& machine) {
  std::vector<std::string> workloads;
  for (const auto& config : configs)
    if (std::find(workloads.begin(), workloads.end(), config.workload) == workloads.end())
      workloads.push_back(config.workload);
  // The report describes --workload's workloads: a config id naming another contradicts it.
  if (!options.workloads.empty())
    for (const auto& config : configs)
      if (std::find(options.workloads.begin(), options.workloads.end(), config.workload) == options.workloads.end())
        throw UsageError("--matrix " + config.id() + " runs workload " + config.workload + " but --workload '" +
                         fmt::format("{}", fmt::join(options.workloads, ",")) +
                         "' leaves it out: drop --workload or name only its workloads' configs");
  // A named CPU config of more ranks than cores asks for what this machine cannot be: its
  // ranks share the cores one a rank (a group never picks one; it would skip it).
  const std::vector<std::string> named = named_config_ids(options.matrix_spec);
  for (const auto& config : configs)
    if (config.multi_rank() && config.device == DeviceKind::Cpu && config.world_size > machine.cpu_cores &&
        std::find(named.begin(), named.end(), config.id()) != named.end() && !options.settings.oversubscribe)
      throw UsageError(fmt::format("--matrix {}: {}-{} needs {} CPU processes, one core each, and this machine has {} "
                                   "cores: expected at most {}-{} here, or --oversubscribe to run it anyway (its "
                                   "timings then measure the scheduler)",
                                   config.id(), to_string(config.parallel), config.world_size, config.world_size,
                                   machine.cpu_cores, to_string(config.parallel), machine.cpu_cores));
  RunSettings& settings = options.settings;
  resolve_data_paths(settings, workloads);
  // Per workload and device: real data is read and checked in full, once, as the device's
  // workload reads it (a CPU row trains 128-token windows where its GPU rows train 2048: a
  // file between the two was refused for the CPU row by the GPU's window). A config this
  // machine skips reads nothing.
  std::map<std::string, std::int64_t> samples;
  const std::string batch_source = settings.batch_size > 0 ? "--batch-size" : "the preset's batch size";
  for (const auto& config : configs) {
    if (skip_reason(config, machine)) continue;
    const ResolvedSizes sizes = resolve_sizes(config, settings);
    const std::string key = config.workload + "/" + to_string(config.device);
    if (!samples.count(key)) {
      const auto path = settings.data_paths.find(config.workload);
      samples[key] = path == settings.data_paths.end()
                         ? sizes.dataset_samples
                         : static_cast<std::int64_t>(*make_workload_for(config)
                                                          ->make_dataset({sizes.dataset_samples, settings.seed, path->second,
                                                                          /*full_check=*/true, settings.max_image_pixels})
                                                          .size());
    }
    if (sizes.batch_size > samples[key])
      throw UsageError(fmt::format("{} {} is larger than the {} dataset ({} samples with preset {})", batch_source,
                                   sizes.batch_size, config.workload, samples[key], to_string(settings.preset)));
    // A DDP rank draws from its shard (ceil(samples / ranks)): the same check, here, not in
    // the ranks half-way through the matrix (a config this machine skips was left out above:
    // ddp-1024 on 2 cores is a skipped row, whatever its shard).
    const std::int64_t shard = (samples[key] + config.world_size - 1) / config.world_size;
    if (config.multi_rank() && sizes.batch_size > shard)
      throw UsageError(fmt::format("{} {} is larger than each rank's shard of the {} dataset for {} ({} of {} "
                                   "samples with preset {})",
                                   batch_source, sizes.batch_size, config.workload, config.id(), shard, samples[key],
                                   to_string(settings.preset)));
  }
  if (options.command == CliOptions::Command::List) return;
  check_outputs(options);
}

nlohmann::json matrix_json(const CliOptions& options, const std::vector<Config>& configs, int threads,
                           const MachineCapabilities& machine) {
  // Per workload and device kind: batches differ between a CPU and a GPU.
  nlohmann::json sizes = nlohmann::json::object();
  for (const auto& config : configs) {
    const ResolvedSizes s = resolve_sizes(config, options.settings);
    sizes[config.workload][to_string(config.device)] = {
        {"batch_size", s.batch_size},       {"dataset_samples", s.dataset_samples},
        {"warmup", s.warmup},               {"min_steps", s.stopping.min_steps},
        {"max_steps", s.stopping.max_steps}, {"budget_s", s.stopping.budget_s},
        {"exact_steps", s.stopping.exact}};
  }
  nlohmann::json ids = nlohmann::json::array();
  for (const auto& config : configs) ids.push_back(config.id());
  return {{"spec", options.matrix_spec},
          {"preset", to_string(options.settings.preset)},
          {"workloads", selected_workloads(options)},
          {"sizes", sizes},
          {"seed", options.settings.seed},
          {"overhead_mode", options.settings.overhead},
          {"threads", threads},
          {"workers", options.settings.workers},
          {"host_malloc", host_malloc_json(options.settings.host_malloc)},
          {"data", options.settings.data_paths},
          {"config_ids", ids},
          {"recipes", recipes_json(options, machine)},
          // Never silently: a report measured with the test-only slowdown says so.
          {"test_step_delay_ms", options.settings.test_step_delay_ms}};
}

// The configs a group chose that this machine leaves out (left_out_of_groups); an id named
// in --matrix always runs.
std::map<std::string, std::string> left_out_configs(const CliOptions& options, const std::vector<Config>& configs,
                                                    const MachineCapabilities& machine) {
  const std::vector<std::string> named = named_config_ids(options.matrix_spec);
  std::map<std::string, std::string> left_out;
  for (const auto& config : configs) {
    if (std::find(named.begin(), named.end(), config.id()) != named.end()) continue;
    const bool workload_named =
        std::find(options.workloads.begin(), options.workloads.end(), config.workload) != options.workloads.end();
    if (auto reason = left_out_of_groups(config, machine, workload_named)) left_out[config.id()] = *reason;
  }
  return left_out;
}

}  // namespace

int run_matrix_command(const CliOptions& given, const std::string& command_line) {
  CliOptions options = given;  // validation resolves a bare --data PATH to its workload
  const int threads = apply_thread_setting(options.settings.threads);
  // --list --assume-gpus: the matrix as a machine with those GPUs would expand it.
  const std::optional<AssumedGpus> assumed =
      options.assume_gpus.empty() ? std::nullopt : std::optional<AssumedGpus>(parse_assumed_gpus(options.assume_gpus));
  const MachineCapabilities machine = assumed ? with_assumed_gpus(detect_capabilities(), *assumed) : detect_capabilities();
  const std::vector<Config> configs = expand_configs(options, machine);
  validate_inputs(options, configs, machine);
  const nlohmann::json ceilings = options.ceilings.empty() ? nlohmann::json() : load_ceilings(options.ceilings);
  const std::map<std::string, std::string> left_out = left_out_configs(options, configs, machine);
  if (options.command == CliOptions::Command::List) {
    if (options.format == "markdown")
      throw UsageError("--list --format markdown: --list prints a table (the default) or json (--format json)");
    return print_list(configs, machine, left_out, options.settings, options.format, assumed);
  }
  // Launched as one rank (torchrun, Slurm, --nproc): a bad launch environment or an
  // unreachable store is a usage error now, before anything runs; only rank 0 reports.
  const std::shared_ptr<RankLauncher> ranks = RankLauncher::from_environment(options.settings.comm_timeout_s);
  // Only the writer locks its outputs: the other ranks name the same --out and write none.
  const std::vector<OutputLock> output_locks = ranks->writes_report() ? lock_outputs(options) : std::vector<OutputLock>();
  if (ranks->external() && ranks->writes_report() && !ranks->results_authenticated())
    std::cerr << "gpubench: warning: launched by " << ranks->env().launcher << " without GPUBENCH_RUN_SECRET: the ranks' "
              << "results cross the rendezvous store unauthenticated (docs/ddp.md)" << std::endl;
  std::vector<std::string> config_ids;
  for (const auto& config : configs) config_ids.push_back(config.id());
  ranks->agree_on_configs(config_ids);

  MatrixRun run;
  run.ranks = ranks;
  run.configs = configs;
  run.settings = options.settings;
  run.machine = machine;
  run.left_out = left_out;
  run.collect_trace = !options.trace.empty();
  run.child_command = {self_executable()};
  const auto settings_args = settings_to_args(options.settings);
  run.child_command.insert(run.child_command.end(), settings_args.begin(), settings_args.end());

  const nlohmann::json env = record_environment(machine.cuda);
  const nlohmann::json matrix = matrix_json(options, configs, threads, machine);
  std::vector<nlohmann::json> done;
  ProgressLines progress(::isatty(STDERR_FILENO) ? terminal_columns() : 0);
  install_interrupt_handlers();  // Ctrl-C: stop the running config, report the rest as not run
  const MatrixOutput output = run_matrix(run, [&](std::size_t index, const nlohmann::json& row) {
    if (!ranks->writes_report()) return;
    if (const auto line = progress.row(index, configs.size(), row)) std::cerr << *line << std::endl;
    done.push_back(row);
    // Rewritten after every config that ran: an interrupted matrix keeps what it measured.
    // Not after a skipped row (it measured nothing, and a matrix of thousands of skipped
    // ids would rewrite a growing report thousands of times). A failed write (disk full)
    // does not stop the matrix: the final write tries again. A device or FIFO gets the
    // final report only (one document, one writer's open).
    if (row.value("status", "") == "skipped" || written_in_place(options.out)) return;
    if (auto error = written_or_error([&] {
          write_file_atomically(options.out, json_text(build_report(env, matrix, done, command_line, ceilings), 2) + "\n");
        }))
      std::cerr << "gpubench: warning: report not written after " << one_line(row.value("config_id", "?")) << ": "
                << one_line(*error) << std::endl;
  });
  const auto& results = output.results;
  if (!ranks->writes_report()) return 0;  // rank 0 has every rank's outcome
  for (const std::string& line : progress.summary()) std::cerr << line << std::endl;
  const nlohmann::json report = build_report(env, matrix, results, command_line, ceilings);
  const auto report_error = written_or_error([&] { write_file_atomically(options.out, json_text(report, 2) + "\n"); });
  std::optional<std::string> trace_error;
  if (run.collect_trace) {
    trace_error = written_or_error([&] { write_chrome_trace(options.trace, output.trace_sets); });
    if (!trace_error)
      std::cerr << "trace written to " << one_line(options.trace) << " (open in https://ui.perfetto.dev or chrome://tracing)"
                << std::endl;
  }
  // Each config's child writes its own trace file; a failed write fails that config's row.
  const bool any_ok = std::any_of(results.begin(), results.end(),
                                  [](const nlohmann::json& row) { return row.value("status", "") == "ok"; });
  if (!options.settings.hta_dir.empty() && any_ok)
    std::cerr << "per-rank traces of the ok configs in " << one_line(options.settings.hta_dir)
              << "/<config>/ (HTA: TraceAnalysis(trace_dir=\"" << one_line(options.settings.hta_dir) << "/<config>\"))" << std::endl;
  // The measurements reach the terminal whatever became of the files.
  const std::string format = !options.format.empty() ? options.format : (isatty(STDOUT_FILENO) ? "table" : "json");
  std::cout << format_report(report, format, terminal_columns()) << std::flush;
  if (report_error) std::cerr << "gpubench: error: report not written: " << one_line(*report_error) << std::endl;
  if (trace_error) std::cerr << "gpubench: error: trace not written: " << one_line(*trace_error) << std::endl;
  if (!report_error) std::cerr << "report written to " << one_line(options.out) << std::endl;
  if (const int signal = interrupt_signal(); signal != 0) {
    std::cerr << "gpubench: interrupted by " << interrupt_signal_name() << ": the running config was stopped, "
              << "the configs after it were not run" << std::endl;
    return 128 + signal;
  }
  if (report_error || trace_error) return kExitOutputNotWritten;
  const bool any_failed = std::any_of(results.begin(), results.end(),
                                      [](const nlohmann::json& row) { return row.value("status", "") == "failed"; });
  return options.strict && any_failed ? 1 : 0;
}

void check_nproc_runs_something(const CliOptions& options) {
  const MachineCapabilities machine = detect_capabilities();
  const std::vector<Config> configs = expand_configs(options, machine);
  const std::map<std::string, std::string> left_out = left_out_configs(options, configs, machine);
  std::vector<std::string> why;
  for (const Config& config : configs) {
    std::optional<std::string> reason =
        left_out.count(config.id()) ? left_out.at(config.id()) : skip_reason(config, machine, options.settings);
    if (!reason && (!config.multi_rank() || config.world_size != options.nproc))
      reason = !config.multi_rank() ? "not a multi-rank config"
                                    : "a " + to_string(config.parallel) + "-" + std::to_string(config.world_size) + " config";
    if (!reason) return;
    if (why.size() < 3) why.push_back(config.id() + ": " + *reason);
  }
  throw UsageError(fmt::format("--nproc {}: none of the {} config(s) of --matrix '{}' would run under {} ranks here ({}{}): "
                               "expected a ddp-{} config this machine can run (only those run under a launcher)",
                               options.nproc, configs.size(), options.matrix_spec, options.nproc, fmt::join(why, "; "),
                               configs.size() > why.size() ? "; ..." : "", options.nproc));
}

int run_child_command(const CliOptions& options) {
  // Internal flags: the parent's private folder is the only place they write.
  for (const auto& [flag, path] : {std::pair<std::string, std::string>{"--child-result", options.child_result},
                                   {"--child-trace", options.settings.trace_path}})
    if (!path.empty() && !is_in_private_dir(path))
      throw UsageError(flag + " '" + path + "' is not in a private folder of a gpubench parent (gpubench-XXXXXX, " +
                       "mode 0700, this user's): it is an internal flag, expected only from gpubench itself");
  check_writable(options.child_result, "--child-result");  // before the run, as for --out
  try {
    return run_child_config(Config::parse(options.child_config), options.settings, options.child_result);
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& error) {  // the config's own failures are in the result: this is its write
    std::cerr << "gpubench: error: child result not written: " << one_line(error.what()) << std::endl;
    return kChildResultNotWritten;  // the parent names the folder and, when it is full, says so
  }
}

}  // namespace gpubench
