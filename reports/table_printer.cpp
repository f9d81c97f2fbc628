#include <fmt/format.h>

#include "reports/ablation.h"
#include "reports/fit_table.h"
#include "reports/report_format.h"
#include "reports/overhead_rows.h"
#include "reports/report_rows.h"

namespace gpubench {

namespace {

// The config table, most important column first; the steps say what goes as width runs out.
std::string results_table(const nlohmann::json& report, std::size_t width) {
  const auto& comparisons = report.value("comparisons", nlohmann::json::array());
  enum { kConfig, kStatus, kRate, kStep, kMfu, kMemory, kLoss, kPhases };
  std::vector<FitColumn> columns = {{"config", {}, "", {}},
                                    {"status", {}, "", {}},
                                    {"samples/s median [p10-p90]", {}, "samples/s", {}},
                                    {"step ms", {}, "", {}},
                                    {"model TFLOP/s, MFU", {}, "MFU", {}},
                                    {"peak memory", {}, "", {}},
                                    {"loss first -> last", {}, "", {}},
                                    {"phase shares", {}, "", {}}};
  std::vector<std::vector<std::string>> notes;
  for (const auto& row : report.value("results", nlohmann::json::array())) {
    const RowCells c = row_cells(row, comparisons);
    const std::vector<std::pair<std::string, std::string>> cells = {
        {c.config_id, ""},   {c.status, ""},      {c.samples_per_s, c.short_samples_per_s}, {c.step_ms, ""},
        {c.utilization, c.short_utilization}, {c.peak_memory, ""}, {c.loss, ""}, {c.phases, ""}};
    for (std::size_t i = 0; i < cells.size(); ++i) {
      columns[i].cells.push_back(cells[i].first);
      columns[i].short_cells.push_back(cells[i].second);
    }
    notes.push_back(c.notes);
  }
  using A = FitStep::Action;
  const std::vector<FitStep> steps = {{kPhases, A::Drop}, {kMfu, A::Shorten}, {kLoss, A::Drop},  {kRate, A::Shorten},
                                      {kStep, A::Drop},   {kMemory, A::Drop}, {kMfu, A::Drop}};
  return fit_table(columns, steps, width, notes);
}

// What each technique bought; the baseline is the candidate less the technique, so it goes
// before the speedup does.
std::string comparisons_table(const nlohmann::json& report, std::size_t width) {
  std::vector<FitColumn> columns = {{"comparison", {}, "", {}},
                                    {"candidate vs baseline", {}, "candidate", {}},
                                    {"speedup", {}, "", {}},
                                    {"memory ratio", {}, "memory", {}},
                                    {"workload", {}, "", {}}};
  for (const auto& c : report.value("comparisons", nlohmann::json::array())) {
    if (c.value("kind", "") == "ablation" || c.value("kind", "") == "scaling_efficiency") continue;
    columns[0].cells.push_back(c.value("kind", ""));
    columns[1].cells.push_back(c.value("candidate", "") + " vs " + c.value("baseline", ""));
    columns[1].short_cells.push_back(c.value("candidate", ""));
    columns[2].cells.push_back(fmt::format("{:.2f}x", c.value("speedup", 0.0)));
    columns[3].cells.push_back(fmt::format("{:.2f}x", c.value("memory_ratio", 0.0)));
    columns[3].short_cells = columns[3].cells;
    columns[4].cells.push_back(c.value("workload", ""));
  }
  if (columns[0].cells.empty()) return "";
  using A = FitStep::Action;
  return "\n" + fit_table(columns, {{4, A::Drop}, {3, A::Shorten}, {1, A::Shorten}}, width);
}

}  // namespace

std::string format_report_table(const nlohmann::json& report, std::size_t width) {
  const auto& env = report.value("env", nlohmann::json::object());
  std::string text = wrap_text(fmt::format("gpubench {} · {} · LibTorch {} · {} threads · {}",
                                           report["tool"].value("version", "?"), env.value("cpu_model", "?"),
                                           env.value("torch_version", "?"), env.value("threads", 0),
                                           report["matrix"].value("preset", "?")),
                               width) +
                     "\n";
  text += results_table(report, width);
  text += comparisons_table(report, width);
  text += format_ablation_blocks(report, width);
  const auto overhead = overhead_rows(report);
  if (overhead.size() > 1) {
    // Ranked by what a reader needs to judge the overhead: the level, its cost, the verdict
    // (free text, moved under its row rather than dropped).
    using A = FitStep::Action;
    text += "\nharness overhead (--overhead)\n" +
            fit_table(columns_from_rows(overhead),
                      {{3, A::Drop}, {6, A::Drop}, {5, A::Drop}, {2, A::Drop}, {7, A::ToNotes}}, width);
  }
  return text;
}

}  // namespace gpubench
