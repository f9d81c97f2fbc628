#include "reports/ceiling_shares.h"

#include "harness/ceilings/ceilings_file.h"

namespace gpubench {

void apply_ceilings(nlohmann::json& results, const nlohmann::json& ceilings) {
  for (auto& row : results) {
    if (row.value("status", "") != "ok") continue;
    const auto& config = row["config"];
    nlohmann::json shares = nlohmann::json::object();
    const std::string step_key =
        "train_step_samples_per_s." + config.value("device", "") + "." + config.value("workload", "");
    const double rate = row["throughput"]["samples_per_s"].value("median", 0.0);
    if (const auto ceiling = find_ceiling(ceilings, step_key); ceiling && *ceiling > 0) {
      shares["train_step_share"] = rate / *ceiling;
      shares["train_step_ceiling"] = *ceiling;
    }
    const auto& copy = row.value("h2d", nlohmann::json::object());
    const std::string copy_key = "h2d_" + config.value("host_memory", "pageable") + "_gb_per_s";
    if (copy.contains("gb_per_s"))
      if (const auto ceiling = find_ceiling(ceilings, copy_key); ceiling && *ceiling > 0) {
        shares["h2d_share"] = copy["gb_per_s"].get<double>() / *ceiling;
        shares["h2d_ceiling_gb_per_s"] = *ceiling;
      }
    if (!shares.empty()) row["vs_ceilings"] = shares;
  }
}

}  // namespace gpubench
