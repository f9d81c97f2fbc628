#include "cli/compare_command.h"


#include <iostream>

#include "reports/compare/compare_format.h"
#include "reports/compare/compare_reports.h"
#include "reports/compare/report_loader.h"

namespace gpubench {

int run_compare_command(const CliOptions& options) {
  CompareOptions compare;
  compare.threshold = parse_threshold(options.compare_threshold);
  compare.metric = options.compare_metric;
  const auto base = load_report(options.compare_base, "BASE");
  const auto next = load_report(options.compare_new, "NEW");
  const CompareResult result = compare_reports(base, options.compare_base, next, options.compare_new, compare);
  const std::string format = !options.format.empty() ? options.format : "table";
  std::cout << format_compare(result, format) << std::flush;
  return result.regression ? 1 : 0;
}

}  // namespace gpubench
