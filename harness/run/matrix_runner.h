#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/config.h"
#include "core/config/run_settings.h"
#include "harness/parallel/rank_launcher.h"
#include "harness/profile/trace_probe.h"
#include "harness/run/capability.h"
#include "harness/run/child_process.h"

namespace gpubench {

struct MatrixRun {
  std::vector<Config> configs;
  RunSettings settings;
  MachineCapabilities machine;
  // Config id -> why the groups left it out here (capability.h's left_out_of_groups): a
  // `skipped` row with that reason.
  std::map<std::string, std::string> left_out;
  // argv that re-executes gpubench for one config: {exe, settings flags...}; the runner
  // appends --child-config ID --child-result FILE.
  std::vector<std::string> child_command;
  bool collect_trace = false;  // children hand their trace spans back (--trace)
  // Starts a ddp-N config's ranks (all here, or this rank's under torchrun/Slurm) and
  // collects their outcomes. Null: made on first use for a launch alone.
  std::shared_ptr<RankLauncher> ranks;
};

struct MatrixOutput {
  std::vector<nlohmann::json> results;
  std::vector<TraceSpanSet> trace_sets;  // one per config that ran, with --trace
};

// Runs every config in its own child process (isolation from crashes and OOM, a clean
// per-config peak RSS), a ddp-N config in N, one per rank: rank 0's result is the row, and
// a rank that fails, crashes or times out fails the config with every failed rank's
// reason. A config that cannot run is `skipped` with its reason; one that throws, crashes
// or times out is `failed` with its reason; the matrix always goes on.
// `on_result` is called after each config (progress, incremental report writes). When
// this process is interrupted (io/interrupt.h) the running config is stopped and fails,
// and every config after it is `skipped` with "not run: interrupted (SIGINT)": those rows
// are in the output only, without on_result.
MatrixOutput run_matrix(const MatrixRun& run,
                                       const std::function<void(std::size_t index, const nlohmann::json&)>& on_result);

// A result row for a config that did not produce measurements.
nlohmann::json status_row(const Config& config, const std::string& status, const std::string& reason);

// Exit code of a config child that failed and wrote its reason (a `failed` row).
constexpr int kChildFailedWithReason = 3;
// Exit code of a config child that could not write its result file (the matrix's "an
// output could not be written", cli/matrix_command.h).
constexpr int kChildResultNotWritten = 4;

// The reason of a config whose child ended with kChildResultNotWritten: the folder it could
// not write in (the run's private folder, in TMPDIR) and, when that file system is full,
// that it is and how much is left, where "exit code 4" alone named nothing.
std::string unwritten_result_reason(const std::string& result_path);

// The row of a config child from how it ended and what it wrote (null: nothing). Only an
// exit 0 makes a written row count as it stands; exit kChildFailedWithReason counts only
// with a `failed` row; any other end (another exit code, a signal, the timeout) fails the
// config with the process's own description, whatever file is there.
nlohmann::json child_row(const Config& config, const ChildOutcome& outcome, nlohmann::json written);

// The child side: runs one config in this process and writes its result (ok or failed
// with the exception text) atomically to `result_path`. Returns the process exit code.
int run_child_config(const Config& config, const RunSettings& settings, const std::string& result_path);

}  // namespace gpubench
