#pragma once
// `gpubench tune WORKLOAD [--memory-budget GIB] [--device cpu|cuda]`: the fastest stack of
// techniques and micro-batch for WORKLOAD here (run/tune_search.h), each candidate in its
// own child process as the matrix runs configs. Prints the steps and the winner as a
// config id with its batch, its margin over the runner-up and that margin's noise; writes
// the whole search as a report (--out, default gpubench-tune.json; report["tune"]).
// Exit 0 with a winner, 1 when no candidate trained or fitted the budget, 2 bad input, 4
// report not written; 128+signal when SIGINT, SIGTERM or SIGHUP stopped it (the running
// candidate is stopped as a matrix config is, the search so far written, its private
// folder removed; io/interrupt.h).
#include <string>

#include "cli/flags.h"

namespace gpubench {

int run_tune_command(const CliOptions& options, const std::string& command_line);

}  // namespace gpubench
