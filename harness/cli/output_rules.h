#pragma once
#include "cli/flags.h"

namespace gpubench {

// Checks every output of a matrix run before anything is measured (throws UsageError):
// --out and --trace can be written as write_file_atomically will, --hta-dir is a folder
// where files can be created, and no output is, or lies inside, an input (--data,
// --ceilings, this executable) or another output, links and `..` resolved. The inputs of a
// --data folder include every folder and file its walk reaches through a link (an
// ImageFolder class folder that links to /x makes /x an input). $TMPDIR (else /tmp), where
// the run's private folder is made, is not, and does not lie inside, an input folder.
// matrix_command calls it for a run, not for --list (which creates nothing).
void check_outputs(const CliOptions& options);

}  // namespace gpubench
