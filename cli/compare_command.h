#pragma once
#include <string>

#include "cli/flags.h"
#include "reports/compare/compare_reports.h"

namespace gpubench {

// --threshold, --alpha, --metric and --paired as `compare` and `report` read them; empty
// text is the default (5%, 0.01, samples_per_s). An unknown metric is refused here, before
// any report is read. Throws UsageError naming the flag.
CompareOptions compare_options_from(const std::string& threshold, const std::string& alpha, const std::string& metric,
                                    bool paired);

// `gpubench compare BASE NEW [--junit F]`: exit 0 no regression, 1 a regression, 2 bad
// input (a --junit that is BASE or NEW, or lies in a compared folder, included), 3 compare
// itself failed (never read as a verdict); main makes it 4 when standard output could not
// be written. BASE and NEW are reports, or directories of
// runs (compare_report_sets).
int run_compare_command(const CliOptions& options);

}  // namespace gpubench
