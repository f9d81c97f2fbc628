#include "reports/report.h"

#include <ctime>

#include "reports/ablation.h"
#include "reports/ceiling_shares.h"
#include "reports/comparisons.h"
#include "reports/utilization.h"
#include "reports/verdicts.h"

namespace gpubench {
namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace

nlohmann::json build_report(const nlohmann::json& env, const nlohmann::json& matrix,
                            const std::vector<nlohmann::json>& results, const std::string& command_line,
                            const nlohmann::json& ceilings) {
  nlohmann::json report;
  report["schema_version"] = kReportSchemaVersion;
  report["tool"] = {{"name", "gpubench"}, {"version", GPUBENCH_VERSION}, {"git_commit", git_commit()}};
  report["created_utc"] = utc_now();
  report["command"] = command_line;
  report["env"] = env;
  report["matrix"] = matrix;
  report["results"] = results;
  apply_utilization(report["results"], env, ceilings);  // before the verdicts, which quote MFU
  annotate_results(report["results"]);
  if (!ceilings.is_null()) {
    apply_ceilings(report["results"], ceilings);
    report["ceilings"] = ceilings;
  }
  report["comparisons"] = compute_comparisons(report["results"]);
  for (auto& entry : compute_ablations(matrix, report["results"])) report["comparisons"].push_back(std::move(entry));
  return report;
}

}  // namespace gpubench
