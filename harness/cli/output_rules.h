#pragma once
#include "cli/flags.h"

namespace gpubench {

// Checks every output of a matrix run before anything is measured (throws UsageError):
// --out and --trace can be written as write_file_atomically will, --hta-dir is a folder
// where files can be created, and no output is, or lies inside, an input (--data,
// --ceilings, this executable) or another output, links and `..` resolved.
void check_outputs(const CliOptions& options);

}  // namespace gpubench
