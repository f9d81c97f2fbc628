#include "cli/compare_command.h"

#include <exception>
#include <filesystem>
#include <iostream>

#include "cli/matrix_command.h"
#include "cli/output_rules.h"
#include "cli/terminal_columns.h"
#include "core/config/errors.h"
#include "core/io/atomic_file.h"
#include "core/io/printable.h"

#include "reports/compare/compare_format.h"
#include "reports/compare/compare_reports.h"
#include "reports/compare/report_loader.h"
#include "reports/export/junit_export.h"

namespace gpubench {

CompareOptions compare_options_from(const std::string& threshold, const std::string& alpha, const std::string& metric,
                                    bool paired) {
  CompareOptions compare;
  compare.threshold = parse_threshold(threshold.empty() ? "5%" : threshold);
  compare.alpha = parse_decimal("--alpha", alpha.empty() ? "0.01" : alpha, kMinAlpha, kMaxAlpha, "a significance level");
  compare.metric = metric.empty() ? "samples_per_s" : metric;
  find_compare_metric(compare.metric);
  compare.paired = paired;
  return compare;
}

int run_compare_command(const CliOptions& options) try {
  CompareOptions compare = compare_options_from(options.compare_threshold, options.compare_alpha,
                                                options.compare_metric, options.compare_paired);
  compare.on_disturbed = parse_on_disturbed(options.compare_on_disturbed);
  if (!options.compare_junit.empty()) {
    // Before reading reports: --junit over BASE or NEW (or into a compared folder, where the
    // next compare would read it as a run) would replace a report with XML.
    std::error_code error;
    refuse_overlaps({{"--junit", options.compare_junit, true},
                     {"BASE", options.compare_base, false, std::filesystem::is_directory(options.compare_base, error)},
                     {"NEW", options.compare_new, false, std::filesystem::is_directory(options.compare_new, error)}});
    check_writable(options.compare_junit, "--junit");
  }
  const ReportSet base = load_report_set(options.compare_base, "BASE");
  const ReportSet next = load_report_set(options.compare_new, "NEW");
  if (std::error_code error; std::filesystem::equivalent(options.compare_base, options.compare_new, error))
    std::cerr << "gpubench compare: warning: BASE and NEW are the same " << (base.runs.size() > 1 ? "folder" : "file")
              << " ('" << one_line(options.compare_base) << "'): the result says nothing about a change\n";
  const CompareResult result = compare_report_sets(base, next, compare);
  const std::string format = !options.format.empty() ? options.format : "table";
  std::cout << format_compare(result, format, terminal_columns()) << std::flush;
  if (!options.compare_junit.empty()) {
    try {
      write_file_atomically(options.compare_junit, compare_junit_xml(result));
    } catch (const std::exception& error) {  // not a verdict: exit 4, as for standard output
      std::cerr << "gpubench compare: error: " << one_line(error.what()) << "\n";
      return kExitOutputNotWritten;
    }
  }
  // 5: only regressions measured on a disturbed machine, which --on-disturbed retry leaves
  // for another run to decide (docs/ci.md).
  return result.regression ? 1 : result.retry ? 5 : 0;
} catch (const UsageError&) {
  throw;  // exit 2, with the message
} catch (const std::exception& error) {
  // Never exit 1 for a failure of compare itself: CI reads 1 as "regression".
  std::cerr << "gpubench compare: could not finish (an internal error, not a verdict): " << one_line(error.what()) << "\n";
  return 3;
}

}  // namespace gpubench
