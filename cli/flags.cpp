#include "cli/flags.h"
#include "cli/assumed_gpus.h"
#include "cli/model_flags.h"
#include "cli/subcommand_flags.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "core/config/errors.h"
#include "harness/profile/profile_steps_range.h"
#include "harness/profile/overhead_schedule.h"
#include "workloads/workload.h"

namespace gpubench {
namespace {

// --workload's list; an empty item is a typo, refused as --matrix refuses one.
std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  for (char ch : text + ",") {
    if (ch != ',') {
      item += ch;
      continue;
    }
    if (item.empty() && !text.empty())
      throw UsageError("--workload '" + text + "' has an empty item (a comma at an end, or two together): expected "
                       "e.g. mlp,cnn");
    if (!item.empty()) items.push_back(item);
    item.clear();
  }
  return items;
}

// Plain decimal text only: an optional minus (the range then decides), digits, one
// optional point, an optional exponent. No blanks, '+', hex (0x1p3), inf or nan, which stod and
// stoll would take in some places and not others.
bool is_plain_number(const std::string& text, bool fraction) {
  std::size_t i = 0;
  if (i < text.size() && text[i] == '-') ++i;
  std::size_t digits = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++digits;
  if (!fraction) return digits > 0 && i == text.size();
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    std::size_t exponent = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++exponent;
    if (exponent == 0) return false;
  }
  return i == text.size();
}

// Flags are read as text and converted here so every bad value gets the same kind of
// message: the flag, the value, and what was expected.
struct RawFlags {
  std::string workload, preset = "default", steps, warmup, batch_size, threads, workers, seed, timeout;
  std::string bucket_mb, comm_timeout, nproc, host_malloc, test_step_delay_ms, accumulate, max_image_pixels;
  std::vector<std::string> data;
  RawModelFlags model;
};

constexpr double kMinCommTimeoutS = 1.0;

// "mlp=DIR" names its workload (a built-in or a --model); any other text (a path may hold
// '=') is a bare path.
void add_data_path(const std::string& item, const RunSettings& settings, std::map<std::string, std::string>& paths) {
  std::string workload, path = item;
  const auto equals = item.find('=');
  if (equals != std::string::npos) {
    const std::string prefix = item.substr(0, equals);
    const auto& names = workload_names();
    if (std::find(names.begin(), names.end(), prefix) != names.end() || settings.model_paths.count(prefix)) {
      workload = prefix;
      path = item.substr(equals + 1);
    }
  }
  if (path.empty()) throw UsageError("--data '" + item + "' names no path: expected [WORKLOAD=]PATH");
  if (!paths.emplace(workload, path).second)
    throw UsageError("--data is given twice for " + (workload.empty() ? std::string("a bare path") : workload) + " ('" +
                     paths[workload] + "' and '" + path + "'): expected one path per workload");
}

long long max_threads() { return std::max(16LL, 4LL * std::max(1u, std::thread::hardware_concurrency())); }

// A positive decimal in (0, max] for `flag`; throws UsageError otherwise.
double parse_positive(const std::string& flag, const std::string& text, double max, const std::string& unit) {
  const auto invalid = [&] {
    return UsageError(flag + " '" + text + "' is invalid: expected " + unit + " above 0 and at most " +
                      std::to_string(static_cast<long long>(max)) + ", as plain decimal text");
  };
  double value = 0;
  try {
    value = parse_decimal(flag, text, 0, max, unit);
  } catch (const UsageError&) {
    throw invalid();
  }
  if (!(value > 0)) throw invalid();
  return value;
}

void add_settings_flags(CLI::App& app, RawFlags& raw, CliOptions& options) {
  add_model_flags(app, raw.model);
  app.add_option("--workload", raw.workload, "Comma list of workloads: mlp,cnn,transformer,resnet50,gpt2,llama,moe or --model names (default: every built-in workload and --model; docs/workloads.md)");
  app.add_flag("--oversubscribe", options.settings.oversubscribe,
               "Run a named CPU config of more ranks than cores (e.g. fsdp-3 on 2 cores, to check uneven shards): its "
               "row is marked oversubscribed, its timings the scheduler's, not the machine's");
  app.add_option("--preset", raw.preset, "quick | default | full: steps and dataset sizes (models never change; docs/measurement.md)");
  app.add_option("--steps", raw.steps, "Measured steps per config (default: preset's)");
  app.add_option("--warmup", raw.warmup, "Warm-up steps excluded from statistics (default: preset's)");
  app.add_option("--batch-size", raw.batch_size, "Batch size per process (default: the workload's)");
  app.add_option("--threads", raw.threads, "LibTorch intra-op threads (default: all cores)");
  app.add_option("--workers", raw.workers, "DataLoader worker threads (default: 0, load on the training thread)");
  app.add_option("--host-malloc", raw.host_malloc,
                 "retain | glibc: keep freed CPU tensor memory for the next step (default), or glibc's "
                 "defaults, which unmap and page-fault it again each step (what a Python loop gets; docs/measurement.md)");
  app.add_option("--seed", raw.seed, "Seed for data, init and shuffling (default: 42)");
  app.add_option("--data", raw.data,
                 "[WORKLOAD=]PATH, repeatable: real data instead of synthetic. mlp=DIR with MNIST's IDX files "
                 "(train-images-idx3-ubyte, train-labels-idx1-ubyte), resnet50=DIR an ImageFolder tree (class "
                 "subfolders of JPEG/PNG), gpt2=FILE a nanoGPT train.bin (uint16 ids); a bare PATH is for the one "
                 "workload of the matrix that reads data (workloads/README.md: the formats)")
      ->expected(1)
      ->take_all();
  app.add_option("--max-image-pixels", raw.max_image_pixels,
                 "resnet50 --data: refuse an image above N pixels from its header, before decoding it, and a file above "
                 "3 bytes per pixel of N plus 16 MiB before reading it (default: 178956970, where PIL refuses a "
                 "decompression bomb)");
  app.add_option("--profile-steps", options.settings.profile_steps,
                 "A:B: cudaProfilerStart/Stop and the NVTX range profile-steps@gpubench around steps A..B, for nsys "
                 "--capture-range=cudaProfilerApi or --capture-range=nvtx (docs/profiling.md)");
  app.add_option("--hta-dir", options.settings.hta_dir,
                 "Folder for per-rank Kineto-style traces, DIR/<config>/rank-<R>.json, for Holistic Trace Analysis (docs/profiling.md)");
  app.add_flag("!--no-cupti", options.settings.cupti, "Do not collect CUPTI kernel/memcpy activity on CUDA configs");
  app.add_flag("--sync-phases", options.settings.sync_phases,
               "CUDA: end every phase with a stream sync, so host timers attribute time to phases exactly (slower than a real "
               "loop); default: no sync inside a step, the loss read one step late, the device's phase times from CUDA events");
  app.add_flag("--overhead", options.settings.overhead,
               "Measure the harness's own cost: alternate bare, timed+NVTX (and CUPTI) steps in one run per config (docs/measurement.md)");
  app.add_option("--config-timeout", raw.timeout, "Seconds before a config's process is killed and marked failed (default: 1800)");
  app.add_option("--bucket-mb", raw.bucket_mb, "DDP gradient bucket size in MiB, as PyTorch's bucket_cap_mb (default: 25; docs/ddp.md)");
  app.add_option("--comm-timeout", raw.comm_timeout,
                 "DDP: seconds any rendezvous or collective may wait before the config fails (a dead peer) (default: 60)");
}

void apply_settings(const CLI::App& app, const RawFlags& raw, CliOptions& options) {
  // A flag given with an empty value is still given: count(), not emptiness, decides.
  const auto given = [&](const char* flag) { return app.count(flag) > 0; };
  RunSettings& s = options.settings;
  options.workloads = split_commas(raw.workload);
  if (given("--workload") && options.workloads.empty())
    throw UsageError("--workload '" + raw.workload + "' names no workload: expected e.g. mlp,cnn");
  s.preset = parse_preset(raw.preset);
  if (given("--steps")) s.steps = static_cast<int>(parse_integer("--steps", raw.steps, 1, 1000000));
  if (given("--warmup")) s.warmup = static_cast<int>(parse_integer("--warmup", raw.warmup, 0, 1000000));
  if (given("--batch-size")) s.batch_size = static_cast<int>(parse_integer("--batch-size", raw.batch_size, 1, 1 << 24));
  // More threads than a few per core only adds start-up time (4096 OpenMP threads take a
  // minute to spawn on 2 cores) and measures the scheduler.
  if (given("--threads")) s.threads = static_cast<int>(parse_integer("--threads", raw.threads, 1, max_threads()));
  if (given("--workers")) s.workers = static_cast<int>(parse_integer("--workers", raw.workers, 0, 256));
  if (given("--host-malloc")) s.host_malloc = parse_host_malloc(raw.host_malloc);
  apply_model_flags(app, raw.model, builtin_workload_names(), s);
  for (const std::string& item : raw.data) add_data_path(item, s, s.data_paths);
  // No JPEG is over 65535 x 65535; libpng reads at most 1e6 x 1e6.
  if (given("--max-image-pixels"))
    s.max_image_pixels = parse_integer("--max-image-pixels", raw.max_image_pixels, 1, 1LL << 40);
  // LibTorch's CPU generator keeps 32 bits of a seed (at::mt19937): 0 and 2^32 would be the
  // same run, so what it cannot honour is refused.
  if (given("--seed")) s.seed = static_cast<std::uint64_t>(parse_integer("--seed", raw.seed, 0, 4294967295LL));
  if (!s.profile_steps.empty()) (void)parse_profile_steps(s.profile_steps);  // fail now, not per config
  if (given("--config-timeout")) s.config_timeout_s = static_cast<double>(parse_integer("--config-timeout", raw.timeout, 1, 7 * 24 * 3600));
  if (given("--bucket-mb")) s.bucket_mb = parse_positive("--bucket-mb", raw.bucket_mb, 4096, "a size in MiB");
  if (given("--comm-timeout")) {
    s.comm_timeout_s = parse_positive("--comm-timeout", raw.comm_timeout, 24 * 3600, "seconds");
    // Below a second even a healthy rendezvous times out, and the failure reads like a
    // network problem: refuse it here, naming the bound.
    if (s.comm_timeout_s < kMinCommTimeoutS)
      throw UsageError("--comm-timeout '" + raw.comm_timeout + "' is invalid: expected seconds from 1 to 86400 " +
                       "(ranks need about a second to meet)");
  }
  if (s.overhead) {
    // Its levels are fixed so that two runs measure the same thing; a trace or a profiler
    // capture would be instrumentation the bare steps lack.
    for (const char* flag : {"--trace", "--hta-dir", "--profile-steps"})
      if (given(flag)) throw UsageError(std::string("--overhead cannot be combined with ") + flag + ": run them separately");
    // Two full rounds of the widest schedule (bare, timers, CUPTI), so every level has
    // steps left after the first of each segment is dropped.
    OverheadSchedule widest;
    widest.levels = 3;
    const int min_steps = widest.steps_for_rounds(2);
    if (s.steps > 0 && s.steps < min_steps)
      throw UsageError("--steps " + raw.steps + " is too few for --overhead: expected at least " +
                       std::to_string(min_steps) + " (two rounds of each instrumentation level)");
  }
  if (given("--test-step-delay-ms"))
    s.test_step_delay_ms = parse_decimal("--test-step-delay-ms", raw.test_step_delay_ms, 0, 60000, "milliseconds");
  if (given("--nproc")) options.nproc = static_cast<int>(parse_integer("--nproc", raw.nproc, 1, 1024));
  if (given("--accumulate")) options.accumulate = static_cast<int>(parse_integer("--accumulate", raw.accumulate, 1, 1024));
}

}  // namespace

long long parse_integer(const std::string& flag, const std::string& text, long long min, long long max) {
  std::size_t used = 0;
  long long value = 0;
  bool ok = is_plain_number(text, false);
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    ok = false;
  }
  if (!ok || used != text.size() || value < min || value > max)
    throw UsageError(flag + " '" + text + "' is invalid: expected a whole number from " + std::to_string(min) + " to " +
                     std::to_string(max));
  return value;
}

double parse_decimal(const std::string& flag, const std::string& text, double min, double max, const std::string& unit) {
  std::size_t used = 0;
  double value = 0;
  bool ok = is_plain_number(text, true);
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    ok = false;  // out of double's range (1e400, 1e-400) as well
  }
  if (!ok || used != text.size() || !std::isfinite(value) || value < min || value > max)
    throw UsageError(fmt::format("{} '{}' is invalid: expected {} from {:g} to {:g}, as plain decimal text", flag, text,
                                 unit, min, max));
  return value;
}

CliOptions parse_command_line(int argc, const char* const* argv) {
  CliOptions options;
  RawFlags raw;
  CLI::App app{"gpubench: what each deep-learning training technique buys on this machine"};
  app.set_version_flag("--version", std::string("gpubench ") + GPUBENCH_VERSION);
  app.footer("The guide is README.md; each topic has its page in docs/ (docs/guarantees.md: exit codes and what "
             "gpubench promises about files, inputs and signals).");
  app.add_option("--matrix", options.matrix_spec,
                 "all | cpu | gpu | amp | pinned | parallel | tuning | recipes | ablation | comma list of config ids, "
                 "each a stack: workload/device/precision[/pinned|pageable] and any of /dp|ddp-N|zero1-N|zero2-N|fsdp-N /accK "
                 "/adam-foreach|adam-fused /channels-last /ckpt /graph (default: all; --rules says what cannot combine; docs/techniques.md)");
  bool list = false, rules = false;
  app.add_flag("--list", list, "Print the configs SPEC expands to and whether each can run here; run nothing");
  app.add_flag("--rules", rules, "Print the table of techniques that do not combine, and why; run nothing");
  app.add_option("--assume-gpus", options.assume_gpus,
                 "With --list: plan for COUNTxSIZE GPUs (e.g. 8x80GiB) instead of this machine's: each CUDA config's "
                 "memory a GPU, whether it fits and at which micro-batch; nothing runs (docs/sharding.md)");
  add_settings_flags(app, raw, options);
  app.add_option("--out", options.out, "JSON report path, written atomically after every config (default: gpubench-report.json)");
  app.add_option("--ceilings", options.ceilings, "Ceilings file from gpubench-bench --ceilings-out: report each config as a share of them (docs/ceilings-and-mfu.md)");
  app.add_option("--trace", options.trace, "Write a Chrome trace-event JSON (Perfetto, chrome://tracing) of every config");
  app.add_option("--format", options.format, "stdout format: table | json | markdown (default: table on a terminal, else json)");
  app.add_flag("--strict", options.strict, "Exit 1 if any config failed");
  app.add_option("--accumulate", raw.accumulate,
                 "Gradient accumulation: K micro-batches of --batch-size per optimizer step for every config (ids gain "
                 "accK; not graph configs); the loss of each is divided by K, DDP all-reduces once per optimizer step "
                 "(default: 1)");
  app.add_option("--nproc", raw.nproc,
                 "Start N ranks of this command on this host, as torchrun --nproc-per-node N would (for ddp-N configs; docs/ddp.md)");
  app.add_option("--child-config", options.child_config)->group("");
  app.add_option("--child-result", options.child_result)->group("");
  app.add_option("--child-probe-model", options.child_probe_model)->group("");
  app.add_option("--child-trace", options.settings.trace_path)->group("");
  app.add_option("--test-step-delay-ms", raw.test_step_delay_ms)->group("");

  CLI::App* compare = add_compare_command(app, options);
  CLI::App* report = add_report_command(app, options.report);
  std::string memory_budget;
  CLI::App* tune = add_tune_command(app, options, memory_budget);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    options.command = CliOptions::Command::Help;
    options.help_text = app.help();
    return options;
  } catch (const CLI::CallForVersion&) {
    options.command = CliOptions::Command::Version;
    return options;
  } catch (const CLI::ParseError& error) {
    throw UsageError(std::string(error.what()) + " (see gpubench --help)");
  }
  // An empty value (--trace "") is never what was meant: refuse it rather than ignore it.
  for (const CLI::App* scope : {static_cast<const CLI::App*>(&app), static_cast<const CLI::App*>(compare),
                                static_cast<const CLI::App*>(tune), static_cast<const CLI::App*>(report)})
    for (const CLI::Option* option : scope->get_options())
      if (option->count() > 0 && option->get_expected_min() > 0)
        for (const std::string& value : option->results())
          if (value.empty())
            throw UsageError(option->get_name() + " is empty: expected a value (see gpubench --help)");
  if (options.format != "" && options.format != "table" && options.format != "json" && options.format != "markdown")
    throw UsageError("--format '" + options.format + "' is unknown: expected table, json or markdown");
  if (compare->parsed()) {
    // `gpubench --steps 5 compare A B`: a matrix flag that compare would silently ignore.
    refuse_matrix_flags(app, "compare", kCompareUsage);
    options.command = CliOptions::Command::Compare;
    return options;
  }
  if (report->parsed()) {
    refuse_matrix_flags(app, "report", kReportUsage);
    options.command = CliOptions::Command::Report;
    return options;
  }
  if (tune->parsed()) {
    options.command = CliOptions::Command::Tune;
    if (tune->count("--memory-budget"))
      options.tune_memory_budget_gib = parse_positive("--memory-budget", memory_budget, 1 << 20, "GiB");
    if (!options.tune_device.empty() && options.tune_device != "cpu" && options.tune_device != "cuda")
      throw UsageError("--device '" + options.tune_device + "' is unknown: expected cpu or cuda");
    for (const char* flag : {"--matrix", "--list", "--rules", "--accumulate", "--nproc", "--overhead", "--trace", "--hta-dir"})
      if (app.count(flag) > 0)
        throw UsageError(std::string(flag) + " is a flag of the matrix run, not of tune: tune chooses the configs itself");
  }
  options.out_given = app.count("--out") > 0;
  apply_settings(app, raw, options);
  // Absolute, so every config process and rank writes to the same folder.
  if (!options.settings.hta_dir.empty())
    options.settings.hta_dir = std::filesystem::absolute(options.settings.hta_dir).lexically_normal().string();
  if (options.command == CliOptions::Command::Tune) return options;
  if (!options.child_probe_model.empty()) {
    if (options.child_result.empty() || !options.child_config.empty())
      throw UsageError("--child-probe-model goes with --child-result alone (internal flags)");
    options.command = CliOptions::Command::ProbeModel;
  } else if (!options.child_config.empty() || !options.child_result.empty()) {
    if (options.child_config.empty() || options.child_result.empty())
      throw UsageError("--child-config and --child-result go together (internal flags)");
    options.command = CliOptions::Command::Child;
  } else if (rules) {
    // The table is printed whole: a --matrix (nonsense or not) would be silently ignored.
    for (const char* flag : {"--matrix", "--list", "--workload"})
      if (app.count(flag) > 0)
        throw UsageError(std::string("--rules prints the whole table of techniques that do not combine: ") + flag +
                         " has no meaning with it (expected --rules alone; --list --matrix SPEC says what SPEC expands to)");
    options.command = CliOptions::Command::Rules;
  } else if (list) {
    options.command = CliOptions::Command::List;
  }
  if (!options.assume_gpus.empty()) {
    parse_assumed_gpus(options.assume_gpus);  // a bad COUNTxSIZE is exit 2 whatever else is wrong
    if (options.command != CliOptions::Command::List)
      throw UsageError("--assume-gpus " + options.assume_gpus +
                       " plans for GPUs this machine does not have and runs nothing: it goes with --list");
  }
  return options;
}

std::vector<std::string> settings_to_args(const RunSettings& s) {
  std::vector<std::string> args = {"--preset", to_string(s.preset), "--seed", std::to_string(s.seed)};
  const auto add = [&](const char* flag, long long value) {
    args.push_back(flag);
    args.push_back(std::to_string(value));
  };
  if (s.steps > 0) add("--steps", s.steps);
  if (s.warmup >= 0) add("--warmup", s.warmup);
  if (s.batch_size > 0) add("--batch-size", s.batch_size);
  if (s.threads > 0) add("--threads", s.threads);
  add("--workers", s.workers);
  // The config's process re-checks image headers with the same limit.
  if (s.max_image_pixels > 0) add("--max-image-pixels", s.max_image_pixels);
  args.insert(args.end(), {"--host-malloc", to_string(s.host_malloc)});
  for (const auto& [workload, path] : s.data_paths)
    args.insert(args.end(), {"--data", workload.empty() ? path : workload + "=" + path});
  if (!s.profile_steps.empty()) args.insert(args.end(), {"--profile-steps", s.profile_steps});
  if (!s.hta_dir.empty()) args.insert(args.end(), {"--hta-dir", s.hta_dir});
  if (!s.cupti) args.push_back("--no-cupti");
  if (s.sync_phases) args.push_back("--sync-phases");
  if (s.overhead) args.push_back("--overhead");
  if (s.oversubscribe) args.push_back("--oversubscribe");
  // Decimal flags round-trip exactly through %.17g.
  const auto add_decimal = [&](const char* flag, double value) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.17g", value);
    args.insert(args.end(), {flag, text});
  };
  add_decimal("--bucket-mb", s.bucket_mb);
  add_decimal("--comm-timeout", s.comm_timeout_s);
  if (s.test_step_delay_ms > 0) args.insert(args.end(), {"--test-step-delay-ms", std::to_string(s.test_step_delay_ms)});
  const auto model_args = model_flags_to_args(s);
  args.insert(args.end(), model_args.begin(), model_args.end());
  return args;
}

}  // namespace gpubench
