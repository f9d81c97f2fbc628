#pragma once
#include <string>

#include "cli/flags.h"
#include "harness/run/matrix_runner.h"

namespace gpubench {

// Exit code when the matrix ran but its report or trace could not be written at the end
// (disk full, a device that refuses writes): the table was printed, the file is missing.
constexpr int kExitOutputNotWritten = 4;
static_assert(kExitOutputNotWritten == kChildResultNotWritten, "a config child's unwritten result is an unwritten output");

// `gpubench --matrix SPEC ...` and `--list`: expand, validate every input before the
// first measurement, run each config in a child process, write the report after each
// config, print it. Returns the exit code.
int run_matrix_command(const CliOptions& options, const std::string& command_line);

// `--nproc N`: throws UsageError, before any rank starts, when no config of the matrix
// would run under N ranks here (only ddp-N configs run under a launcher, and only those
// this machine can run): N processes would start LibTorch to report skips.
void check_nproc_runs_something(const CliOptions& options);

// `--child-config ID --child-result FILE`: one config, in this process.
int run_child_command(const CliOptions& options);

}  // namespace gpubench
