#include "cli/report_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <utility>

#include "cli/compare_command.h"
#include "cli/flags.h"
#include "cli/matrix_command.h"
#include "cli/output_rules.h"
#include "cli/subcommand_flags.h"
#include "core/config/errors.h"
#include "core/io/atomic_file.h"
#include "core/io/json_text.h"
#include "core/io/printable.h"
#include "reports/compare/compare_reports.h"
#include "reports/compare/report_loader.h"
#include "reports/export/benchmark_exports.h"
#include "reports/html/compare_page_data.h"
#include "reports/html/history_page_data.h"
#include "reports/html/html_page.h"
#include "reports/html/report_page_data.h"

namespace gpubench {
namespace {

enum class PageKind { report, compare, history };

// What a bad call is told: the usage line --help shows.
const std::string kSynopsis = std::string("expected ") + kReportUsage;

PageKind page_kind(const ReportCommandOptions& o) {
  std::error_code error;
  if (o.history) {
    if (o.inputs.size() != 1) throw UsageError("--history takes one folder of reports: " + kSynopsis);
    if (!std::filesystem::is_directory(o.inputs.front(), error))
      throw UsageError("--history '" + o.inputs.front() + "': " +
                       (std::filesystem::exists(o.inputs.front(), error) ? "is not a folder"
                                                                         : "no such folder") +
                       ", expected a folder of gpubench reports (one *.json a run)");
    if (o.paired) throw UsageError("--paired pairs the runs of two folders: it has no meaning for a --history");
    if (!o.metric.empty())
      throw UsageError("--metric picks which verdict a comparison leads with: a --history draws every metric");
    return PageKind::history;
  }
  if (o.inputs.size() == 2) return PageKind::compare;
  if (o.inputs.size() != 1) throw UsageError(fmt::format("{} inputs given: {}", o.inputs.size(), kSynopsis));
  if (std::filesystem::is_directory(o.inputs.front(), error))
    throw UsageError("'" + o.inputs.front() +
                     "' is a folder: add --history to draw its reports over time, or give BASE "
                     "and NEW to compare two folders of runs");
  for (const auto& [flag, given] :
       {std::pair{"--threshold", !o.threshold.empty()}, std::pair{"--alpha", !o.alpha.empty()},
        std::pair{"--metric", !o.metric.empty()}, std::pair{"--paired", o.paired}})
    if (given)
      throw UsageError(std::string(flag) + " is for a comparison (BASE NEW) or a --history, not for one report");
  return PageKind::report;
}

// Every output named, checked before any report is read (a history may take seconds):
// writable, and neither an input nor inside an input folder (an --html over REPORT.json
// would destroy it; a .json page in a --history folder would break the next history), nor
// another output, links and `..` resolved.
std::vector<std::pair<std::string, std::string>> checked_outputs(const ReportCommandOptions& o, PageKind kind) {
  std::vector<std::pair<std::string, std::string>> outputs;  // flag, path
  for (const auto& [flag, path] : {std::pair{"--html", &o.html}, std::pair{"--bencher", &o.bencher},
                                   std::pair{"--github-benchmark", &o.github_benchmark},
                                   std::pair{"--github-benchmark-smaller", &o.github_benchmark_smaller}})
    if (!path->empty()) outputs.emplace_back(flag, *path);
  if (outputs.empty())
    throw UsageError(
        "nothing to write: expected --html FILE (and for one report --bencher FILE, --github-benchmark FILE, "
        "--github-benchmark-smaller FILE)");
  std::vector<NamedPath> paths;
  for (const auto& [flag, path] : outputs) {
    if (kind != PageKind::report && flag != std::string("--html"))
      throw UsageError(std::string(flag) + " exports one report: " + kSynopsis);
    paths.emplace_back(flag, path, true);
  }
  const std::vector<std::string> roles = kind == PageKind::history   ? std::vector<std::string>{"the --history folder"}
                                         : kind == PageKind::compare ? std::vector<std::string>{"BASE", "NEW"}
                                                                     : std::vector<std::string>{"REPORT"};
  for (std::size_t i = 0; i < o.inputs.size() && i < roles.size(); ++i) {
    std::error_code error;
    paths.emplace_back(roles[i], o.inputs[i], false, std::filesystem::is_directory(o.inputs[i], error));
  }
  refuse_overlaps(paths);
  for (const auto& [flag, path] : outputs) check_writable(path, flag);
  return outputs;
}

// Each output's text, all made before any is written (an input error leaves no file
// half-done); the inputs are read once.
std::vector<std::pair<std::string, std::string>> output_texts(
    const std::vector<std::pair<std::string, std::string>>& outputs, PageKind kind, const ReportCommandOptions& o,
    const CompareOptions& compare) {
  std::vector<std::pair<std::string, std::string>> texts;  // path, text
  if (kind == PageKind::history) {
    texts.emplace_back(o.html, render_page(history_page_data(o.inputs.front(), compare)));
  } else if (kind == PageKind::compare) {
    const ReportSet base = load_report_set(o.inputs[0], "BASE");
    const ReportSet next = load_report_set(o.inputs[1], "NEW");
    texts.emplace_back(o.html, render_page(compare_page_data(base, next, compare)));
  } else {
    const nlohmann::json report = load_report(o.inputs.front());
    for (const auto& [flag, path] : outputs) {
      if (flag == "--bencher")
        texts.emplace_back(path, json_text(bencher_metric_format(report, o.inputs.front()), 2) + "\n");
      else if (flag == "--github-benchmark")
        texts.emplace_back(path, json_text(github_benchmark_bigger_is_better(report, o.inputs.front()), 2) + "\n");
      else if (flag == "--github-benchmark-smaller")
        texts.emplace_back(path, json_text(github_benchmark_smaller_is_better(report, o.inputs.front()), 2) + "\n");
      else
        texts.emplace_back(path, render_page(report_page_data(report, o.inputs.front())));
    }
  }
  return texts;
}

}  // namespace

int run_report_command(const ReportCommandOptions& options) {
  const PageKind kind = page_kind(options);
  const auto outputs = checked_outputs(options, kind);
  const CompareOptions compare = compare_options_from(options.threshold, options.alpha, options.metric, options.paired);
  // Refused before the reports are read: a build without Chart.js cannot draw a page.
  if (!options.html.empty() && !html_pages_available())
    throw UsageError("--html cannot be written: " + chartjs_description());
  for (const auto& [path, text] : output_texts(outputs, kind, options, compare)) {
    try {
      write_file_atomically(path, text);
    } catch (const std::exception& error) {
      std::cerr << "gpubench report: error: " << one_line(error.what()) << "\n";
      return kExitOutputNotWritten;
    }
    std::cerr << "gpubench report: wrote " << one_line(path) << fmt::format(" ({:.0f} KiB)\n", text.size() / 1024.0);
  }
  return 0;
}

}  // namespace gpubench
