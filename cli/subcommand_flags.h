#pragma once
#include <string>

#include "cli/flags.h"

namespace CLI {
class App;
}

namespace gpubench {

// The flags of gpubench's subcommands (compare, report, tune), declared on `app`; the
// matrix run's own flags stay in flags.cpp. Each returns its subcommand for parse_command_line
// to ask whether it was the one given.
CLI::App* add_compare_command(CLI::App& app, CliOptions& options);
CLI::App* add_report_command(CLI::App& app, ReportCommandOptions& report);
CLI::App* add_tune_command(CLI::App& app, CliOptions& options, std::string& memory_budget);

inline constexpr const char* kCompareUsage =
    "gpubench compare BASE NEW [--threshold P] [--metric M] [--alpha A] [--paired] [--format F] [--junit F]";
inline constexpr const char* kReportUsage =
    "gpubench report REPORT [--html F] [--bencher F] [--github-benchmark[-smaller] F], BASE NEW --html F, or --history FOLDER "
    "--html F";

// `gpubench --steps 5 compare A B`: a matrix flag the subcommand would silently ignore.
// Throws UsageError naming it and the subcommand's `usage`.
void refuse_matrix_flags(const CLI::App& app, const std::string& subcommand, const std::string& usage);

}  // namespace gpubench
