#include "reports/report_rows.h"

#include <algorithm>

#include <fmt/format.h>

#include "reports/report_format.h"
#include "reports/step_phases.h"

namespace gpubench {
namespace {

std::string phase_shares(const nlohmann::json& phases) {
  static const std::vector<std::pair<const char*, const char*>> names = {
      {"data", "data"}, {"h2d", "h2d"}, {"forward", "fwd"}, {"backward", "bwd"}, {"optimizer", "opt"}};
  std::string text;
  for (const auto& [key, label] : names) {
    if (!phases.contains(key)) continue;
    text += fmt::format("{}{} {:.0f}%", text.empty() ? "" : " ", label, phases[key].value("share", 0.0) * 100);
  }
  return text;
}

std::string utilization_text(const nlohmann::json& row) {
  if (!row.contains("utilization")) return "-";
  const auto& u = row["utilization"];
  std::string text = fmt::format("{:.3g} TF/s", u.value("tflops_per_s", 0.0));
  const std::string precision = u.value("peak_precision", "");
  if (u.contains("mfu_vs_vendor"))
    text += fmt::format(", {:.1f}% MFU (datasheet {} peak)", u["mfu_vs_vendor"].get<double>() * 100, precision);
  if (u.contains("mfu_vs_measured"))
    text += fmt::format(", {:.1f}% MFU (measured {} peak)", u["mfu_vs_measured"].get<double>() * 100, precision);
  return text;
}

// The measured-peak MFU where there is one (the ceiling of this machine), else the datasheet's.
std::string short_utilization_text(const nlohmann::json& row) {
  if (!row.contains("utilization")) return "-";
  const auto& u = row["utilization"];
  if (u.contains("mfu_vs_measured")) return fmt::format("{:.1f}% MFU", u["mfu_vs_measured"].get<double>() * 100);
  if (u.contains("mfu_vs_vendor")) return fmt::format("{:.1f}% MFU", u["mfu_vs_vendor"].get<double>() * 100);
  return fmt::format("{:.3g} TF/s", u.value("tflops_per_s", 0.0));
}

}  // namespace

RowCells row_cells(const nlohmann::json& row, const nlohmann::json& comparisons) {
  RowCells cells;
  cells.config_id = row.value("config_id", "?");
  cells.workload = row.contains("config") ? row["config"].value("workload", "") : "";
  cells.status = row.value("status", "?");
  cells.note = row.value("reason", "");
  if (!cells.note.empty()) cells.notes = {cells.note};
  if (!row.contains("throughput")) {
    cells.samples_per_s = cells.step_ms = cells.utilization = cells.phases = cells.loss = cells.peak_memory = cells.speedup =
        cells.short_samples_per_s = cells.short_utilization = "-";
    return cells;
  }
  // value(), not operator[]: a const json's [] on a missing key is undefined behaviour, and
  // a report is an untrusted file (`gpubench report`, compare).
  const auto rate = row["throughput"].value("samples_per_s", nlohmann::json::object());
  cells.samples_per_s = fmt::format("{} [{}-{}]", format_rate(rate.value("median", 0.0)),
                                    format_rate(rate.value("p10", 0.0)), format_rate(rate.value("p90", 0.0)));
  cells.short_samples_per_s = format_rate(rate.value("median", 0.0));
  cells.step_ms = fmt::format("{:.2f}", row.value("step_ms", nlohmann::json::object()).value("median", 0.0));
  cells.utilization = utilization_text(row);
  cells.short_utilization = short_utilization_text(row);
  cells.phases = phase_shares(step_phases(row));
  if (row.contains("loss"))
    cells.loss = fmt::format("{:.3f} -> {:.3f}", row["loss"].value("first", 0.0), row["loss"].value("last", 0.0));
  const auto& memory = row.value("memory", nlohmann::json::object());
  cells.peak_memory = memory.contains("cuda_peak_allocated_bytes")
                          ? format_bytes(memory["cuda_peak_allocated_bytes"].get<double>()) + " (gpu)"
                          : format_bytes(memory.value("host_peak_rss_bytes", 0.0)) + " (rss)";
  if (row.contains("verdict")) {
    cells.note = row["verdict"].value("text", "");
    cells.notes = {cells.note};
    for (const auto& warning : row.value("warnings", nlohmann::json::array())) {
      cells.note += "; warning: " + warning.get<std::string>();
      cells.notes.push_back("warning: " + warning.get<std::string>());
    }
  }
  cells.speedup = "-";
  for (const auto& comparison : comparisons)
    if (comparison.value("candidate", "") == cells.config_id) {
      cells.speedup = fmt::format("{:.2f}x vs {}", comparison.value("speedup", 0.0), comparison.value("baseline", ""));
      break;
    }
  return cells;
}

}  // namespace gpubench
