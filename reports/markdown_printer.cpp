#include <fmt/format.h>

#include "reports/report_format.h"
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
    text += fmt::format("\n## {}\n\n| config | status | samples/s median [p10-p90] | speedup | peak memory | phase shares | note |\n"
                        "|---|---|---:|---:|---:|---|---|\n",
                        workload);
    for (const auto& row : report["results"]) {
      if (row["config"].value("workload", "") != workload) continue;
      const RowCells c = row_cells(row, comparisons);
      text += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", escape_cell(c.config_id), c.status, c.samples_per_s,
                          escape_cell(c.speedup), c.peak_memory, c.phases, escape_cell(c.note));
    }
  }
  return text;
}

}  // namespace gpubench
