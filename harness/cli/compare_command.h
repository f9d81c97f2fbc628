#pragma once
#include "cli/flags.h"

namespace gpubench {

// `gpubench compare BASE NEW`: exit 0 no regression, 1 a regression, 2 bad input.
int run_compare_command(const CliOptions& options);

}  // namespace gpubench
