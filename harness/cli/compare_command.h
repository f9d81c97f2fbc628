#pragma once
#include "cli/flags.h"

namespace gpubench {

// `gpubench compare BASE NEW`: exit 0 no regression, 1 a regression, 2 bad input, 3 compare
// itself failed (never read as a verdict); main makes it 4 when standard output could not
// be written. BASE and NEW are reports, or directories of
// runs (compare_report_sets).
int run_compare_command(const CliOptions& options);

}  // namespace gpubench
