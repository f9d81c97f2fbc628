// gpubench: runs one real training workload under every configuration this machine can
// run and reports what each technique buys. Exit codes: 0 ok; 1 regression (compare) or a
// failed config with --strict, or an unexpected error; 2 usage or input error; 3 compare
// itself failed (compare_command.h); 4 an output could not be written: the matrix's report
// or trace (matrix_command.h; the table was printed), or standard output, for any command
// and whatever its verdict would have been; 128+signal when SIGINT/SIGTERM stopped the
// matrix (130 for Ctrl-C; the report marks what was not run; io/interrupt.h).
#include <csignal>
#include <iostream>
#include <vector>

#include "cli/compare_command.h"
#include "cli/flags.h"
#include "cli/matrix_command.h"
#include "cli/model_probe.h"
#include "cli/report_command.h"
#include "cli/tune_command.h"
#include "core/config/errors.h"
#include "core/config/technique_rules.h"
#include "core/device/host_malloc.h"
#include "workloads/model_registry.h"
#include "core/io/printable.h"
#include "core/io/standard_streams.h"
#include "harness/parallel/nproc_launcher.h"
#include "harness/run/child_process.h"

namespace {

std::string joined_command_line(int argc, char** argv) {
  std::string text;
  for (int i = 0; i < argc; ++i) text += (i ? " " : "") + std::string(argv[i]);
  return text;
}

// Standard output closed when gpubench started (held on /dev/null: io/standard_streams.h).
bool stdout_was_closed = false;

// Standard output that could not be written (`--list > /dev/full`, a closed pipe, a closed
// fd) is an output failure, never a success and never a verdict: compare's 1 would read as
// a regression nobody saw. Only a signal's code says more.
int with_stdout_checked(int code) {
  std::cout.flush();
  if (std::cout && !stdout_was_closed) return code;
  std::cerr << "gpubench: error: cannot write to standard output" << std::endl;
  return code >= 128 ? code : gpubench::kExitOutputNotWritten;
}

}  // namespace

int main(int argc, char** argv) {
  using gpubench::CliOptions;
  stdout_was_closed = gpubench::hold_closed_standard_streams().stdout_closed;
  // A reader that went away (`| head -1`): writes fail with EPIPE instead of killing gpubench
  // (141, no report): the report is kept and the exit is 4. Config children inherit it.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    const CliOptions options = gpubench::parse_command_line(argc, argv);
    // Before any tensor: the setting applies to the allocations made after it.
    if (options.command == CliOptions::Command::Matrix || options.command == CliOptions::Command::Child)
      gpubench::configure_host_malloc(options.settings.host_malloc);
    // One TorchScript --model's probe, for a parent: nothing else is registered.
    if (options.command == CliOptions::Command::ProbeModel) return gpubench::run_probe_child_command(options);
    // --model workloads exist from here on, in this process as in every config child. A
    // config's child probes an archive in itself (its own process bounds it); any other
    // command in a child of its own (cli/model_probe.h).
    gpubench::register_models(options.settings, options.command == CliOptions::Command::Child
                                                    ? gpubench::ArchiveProber()
                                                    : gpubench::probe_in_child_process(options.settings));
    if (options.command != CliOptions::Command::Child)
      for (const std::string& notice : gpubench::registered_model_notices())
        std::cerr << "gpubench: warning: " << gpubench::printable(notice) << "\n";
    switch (options.command) {
      case CliOptions::Command::Help:
        std::cout << options.help_text;
        return with_stdout_checked(0);
      case CliOptions::Command::Rules:
        std::cout << gpubench::describe_rules();
        return with_stdout_checked(0);
      case CliOptions::Command::Version:
        std::cout << "gpubench " << GPUBENCH_VERSION << "\n";
        return with_stdout_checked(0);
      case CliOptions::Command::Child:
        return gpubench::run_child_command(options);
      case CliOptions::Command::ProbeModel:
        break;  // returned above
      case CliOptions::Command::Tune:
        gpubench::configure_host_malloc(options.settings.host_malloc);
        return with_stdout_checked(gpubench::run_tune_command(options, joined_command_line(argc, argv)));
      case CliOptions::Command::Compare:
        return with_stdout_checked(gpubench::run_compare_command(options));
      case CliOptions::Command::Report:
        return with_stdout_checked(gpubench::run_report_command(options.report));
      case CliOptions::Command::Matrix:
      case CliOptions::Command::List:
        // --nproc N: this process only launches N ranks of the same command line.
        if (options.nproc > 0 && options.command == CliOptions::Command::Matrix) {
          std::vector<std::string> args(argv, argv + argc);
          args[0] = gpubench::self_executable();
          gpubench::check_nproc_runs_something(options);  // before N LibTorch processes start
          return gpubench::run_nproc_launcher(options.nproc, gpubench::without_nproc_flag(args));
        }
        return with_stdout_checked(gpubench::run_matrix_command(options, joined_command_line(argc, argv)));
    }
  } catch (const gpubench::UsageError& error) {
    // Messages quote what was given (a config id, a path): control bytes and newlines shown
    // escaped, so a given name cannot start a line that seems to be gpubench's own (issue 61, item 19).
    std::cerr << "gpubench: error: " << gpubench::one_line(error.what()) << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "gpubench: fatal: " << gpubench::one_line(error.what()) << "\n";
    return 1;
  }
  return 0;
}
