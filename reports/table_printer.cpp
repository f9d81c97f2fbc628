#include <fmt/format.h>

#include "reports/ablation.h"
#include "reports/report_format.h"
#include "reports/overhead_rows.h"
#include "reports/report_rows.h"

namespace gpubench {

std::string format_report_table(const nlohmann::json& report) {
  const auto& comparisons = report.value("comparisons", nlohmann::json::array());
  std::vector<std::vector<std::string>> rows = {
      {"config", "status", "samples/s median [p10-p90]", "step ms", "model TFLOP/s, MFU", "phase shares", "loss first -> last",
       "peak memory", "note"}};
  for (const auto& row : report.value("results", nlohmann::json::array())) {
    const RowCells c = row_cells(row, comparisons);
    rows.push_back({c.config_id, c.status, c.samples_per_s, c.step_ms, c.utilization, c.phases, c.loss, c.peak_memory, c.note});
  }
  const auto& env = report.value("env", nlohmann::json::object());
  std::string text = fmt::format("gpubench {} · {} · LibTorch {} · {} threads · {}\n\n",
                                 report["tool"].value("version", "?"), env.value("cpu_model", "?"),
                                 env.value("torch_version", "?"), env.value("threads", 0),
                                 report["matrix"].value("preset", "?"));
  text += align_columns(rows);
  if (!comparisons.empty()) {
    std::vector<std::vector<std::string>> pairs = {{"comparison", "workload", "candidate vs baseline", "speedup", "memory ratio"}};
    for (const auto& c : comparisons)
      if (c.value("kind", "") != "ablation" && c.value("kind", "") != "scaling_efficiency")
        pairs.push_back({c.value("kind", ""), c.value("workload", ""),
                       c.value("candidate", "") + " vs " + c.value("baseline", ""),
                       fmt::format("{:.2f}x", c.value("speedup", 0.0)), fmt::format("{:.2f}x", c.value("memory_ratio", 0.0))});
    text += "\n" + align_columns(pairs);
  }
  text += format_ablation_blocks(report);
  const auto overhead = overhead_rows(report);
  if (overhead.size() > 1) text += "\nharness overhead (--overhead)\n" + align_columns(overhead);
  return text;
}

}  // namespace gpubench
