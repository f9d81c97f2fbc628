#include <fmt/format.h>

#include "reports/ablation.h"
#include "reports/report_format.h"
#include "reports/overhead_rows.h"
#include "reports/report_rows.h"

namespace gpubench {
namespace {

std::string escape_cell(std::string text) {
  std::string out;
  for (char ch : text) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

}  // namespace

std::string format_report_markdown(const nlohmann::json& report) {
  const auto& comparisons = report.value("comparisons", nlohmann::json::array());
  const auto& env = report.value("env", nlohmann::json::object());
  std::string text = fmt::format("# gpubench report\n\n{} · LibTorch {} · {} threads · preset {} · commit {}\n",
                                 env.value("cpu_model", "?"), env.value("torch_version", "?"), env.value("threads", 0),
                                 report["matrix"].value("preset", "?"), report["tool"].value("git_commit", "?"));
  std::vector<std::string> workloads;
  for (const auto& row : report.value("results", nlohmann::json::array())) {
    const std::string workload = row["config"].value("workload", "");
    if (std::find(workloads.begin(), workloads.end(), workload) == workloads.end()) workloads.push_back(workload);
  }
  for (const auto& workload : workloads) {
    text += fmt::format("\n## {}\n\n| config | status | samples/s median [p10-p90] | speedup | model TFLOP/s, MFU | peak memory | "
                        "phase shares | note |\n"
                        "|---|---|---:|---:|---:|---:|---|---|\n",
                        workload);
    for (const auto& row : report["results"]) {
      if (row["config"].value("workload", "") != workload) continue;
      const RowCells c = row_cells(row, comparisons);
      text += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", escape_cell(c.config_id), c.status, c.samples_per_s,
                          escape_cell(c.speedup), escape_cell(c.utilization), c.peak_memory, c.phases, escape_cell(c.note));
    }
  }
  if (const std::string ablation = format_ablation_blocks(report); !ablation.empty())
    text += "\n## Ablations: what each part of a recipe buys\n\n```text" + ablation + "```\n";
  const auto overhead = overhead_rows(report);
  if (overhead.size() > 1) {
    text += "\n## Harness overhead (--overhead)\n\n";
    for (std::size_t r = 0; r < overhead.size(); ++r) {
      std::string line = "|";
      for (const auto& cell : overhead[r]) line += " " + escape_cell(cell) + " |";
      text += line + "\n";
      if (r == 0) text += "|---|---|---:|---:|---:|---:|---:|---|\n";
    }
  }
  return text;
}

}  // namespace gpubench
