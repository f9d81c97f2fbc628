#include <fmt/format.h>

#include "reports/ablation.h"
#include "reports/report_format.h"
#include "reports/overhead_rows.h"
#include "reports/report_rows.h"

namespace gpubench {

std::string format_report_markdown(const nlohmann::json& report) {
  const auto& comparisons = report.value("comparisons", nlohmann::json::array());
  const auto& env = report.value("env", nlohmann::json::object());
  std::string text = fmt::format("# gpubench report\n\n{} · LibTorch {} · {} threads · preset {} · commit {}\n",
                                 markdown_text(env.value("cpu_model", "?")), markdown_text(env.value("torch_version", "?")),
                                 env.value("threads", 0), markdown_text(report["matrix"].value("preset", "?")),
                                 markdown_text(report["tool"].value("git_commit", "?")));
  std::vector<std::string> workloads;
  for (const auto& row : report.value("results", nlohmann::json::array())) {
    const std::string workload = row["config"].value("workload", "");
    if (std::find(workloads.begin(), workloads.end(), workload) == workloads.end()) workloads.push_back(workload);
  }
  for (const auto& workload : workloads) {
    text += fmt::format("\n## {}\n\n| config | status | samples/s median [p10-p90] | speedup | model TFLOP/s, MFU | peak memory | "
                        "phase shares | note |\n"
                        "|---|---|---:|---:|---:|---:|---|---|\n",
                        markdown_text(workload));
    for (const auto& row : report["results"]) {
      if (row["config"].value("workload", "") != workload) continue;
      const RowCells c = row_cells(row, comparisons);
      // The rate, memory and phase cells are numbers and our own labels; the rest quote the report.
      text += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", markdown_text(c.config_id), markdown_text(c.status),
                          c.samples_per_s, markdown_text(c.speedup), markdown_text(c.utilization), c.peak_memory, c.phases,
                          markdown_text(c.note));
    }
  }
  if (const std::string ablation = format_ablation_blocks(report); !ablation.empty())
    text += "\n## Ablations: what each part of a recipe buys\n\n```text" + ablation + "```\n";
  const auto overhead = overhead_rows(report);
  if (overhead.size() > 1) {
    text += "\n## Harness overhead (--overhead)\n\n";
    for (std::size_t r = 0; r < overhead.size(); ++r) {
      std::string line = "|";
      for (const auto& cell : overhead[r]) line += " " + markdown_text(cell) + " |";
      text += line + "\n";
      if (r == 0) text += "|---|---|---:|---:|---:|---:|---:|---|\n";
    }
  }
  return text;
}

}  // namespace gpubench
