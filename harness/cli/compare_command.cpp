#include "cli/compare_command.h"

#include <exception>
#include <iostream>

#include "config/errors.h"

#include "reports/compare/compare_format.h"
#include "reports/compare/compare_reports.h"
#include "reports/compare/report_loader.h"

namespace gpubench {

int run_compare_command(const CliOptions& options) try {
  CompareOptions compare;
  compare.threshold = parse_threshold(options.compare_threshold);
  compare.metric = options.compare_metric;
  compare.alpha = options.compare_alpha;
  compare.paired = options.compare_paired;
  const ReportSet base = load_report_set(options.compare_base, "BASE");
  const ReportSet next = load_report_set(options.compare_new, "NEW");
  const CompareResult result = compare_report_sets(base, next, compare);
  const std::string format = !options.format.empty() ? options.format : "table";
  std::cout << format_compare(result, format) << std::flush;
  return result.regression ? 1 : 0;
} catch (const UsageError&) {
  throw;  // exit 2, with the message
} catch (const std::exception& error) {
  // Never exit 1 for a failure of compare itself: CI reads 1 as "regression".
  std::cerr << "gpubench compare: could not finish (an internal error, not a verdict): " << error.what() << "\n";
  return 3;
}

}  // namespace gpubench
