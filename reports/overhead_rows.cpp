#include "reports/overhead_rows.h"

#include <fmt/format.h>

namespace gpubench {
namespace {

std::string percent(double fraction) { return fmt::format("{:+.2f}%", fraction * 100); }

std::string shift_text(const nlohmann::json& shift) {
  const auto& ci = shift.value("ci95", nlohmann::json::array({0.0, 0.0}));
  return fmt::format("{} [{}, {}]", percent(shift.value("estimate", 0.0)), percent(ci[0].get<double>()),
                     percent(ci[1].get<double>()));
}

// The probes' own host time per step (ProbeCostMeter), "-" in reports made before it.
std::string probe_cost_text(const nlohmann::json& level) {
  if (!level.contains("probe_cpu_us_per_step")) return "-";
  return fmt::format("{:.1f} us ({:.3f}%)", level["probe_cpu_us_per_step"].get<double>(),
                     level.value("probe_cpu_share_of_step", 0.0) * 100);
}

}  // namespace

std::vector<std::vector<std::string>> overhead_rows(const nlohmann::json& report) {
  std::vector<std::vector<std::string>> rows = {
      {"config", "level", "step ms (median)", "probe CPU per step (share)", "added vs level below [95% CI]", "vs bare",
       "target", "judgement"}};
  for (const auto& row : report.value("results", nlohmann::json::array())) {
    if (!row.contains("overhead")) continue;
    const auto& overhead = row["overhead"];
    for (const auto& level : overhead.value("levels", nlohmann::json::array())) {
      std::vector<std::string> cells = {row.value("config_id", "?"), level.value("name", "?"),
                                        fmt::format("{:.3f}", level.value("median_step_ms", 0.0)),
                                        probe_cost_text(level)};
      if (level.contains("overhead")) {
        cells.push_back(shift_text(level["overhead"]) + " vs " + level.value("vs", "?"));
        cells.push_back(shift_text(level["overhead_vs_bare"]));
        cells.push_back(fmt::format("<= {:g}%", level.value("target", 0.0) * 100));
        cells.push_back(level.value("judgement", "?"));
      } else {
        cells.insert(cells.end(), {"-", "-", "-", "baseline"});
      }
      rows.push_back(std::move(cells));
    }
    if (overhead.contains("cupti_note"))
      rows.push_back(
          {row.value("config_id", "?"), "cupti", "-", "-", "-", "-", "-", overhead["cupti_note"].get<std::string>()});
  }
  return rows;
}

}  // namespace gpubench
