#include "reports/loss_parity.h"

#include <algorithm>

namespace gpubench {
namespace {

const nlohmann::json& curve(const nlohmann::json& row) {
  static const nlohmann::json empty = nlohmann::json::array();
  const auto loss = row.find("loss");
  if (loss == row.end() || !loss->contains("curve")) return empty;
  return (*loss)["curve"];
}

}  // namespace

double late_loss(const nlohmann::json& row, std::size_t steps) {
  const auto& values = curve(row);
  steps = std::min(steps, values.size());
  if (steps == 0) return 0;
  const std::size_t quarter = std::max<std::size_t>(1, steps / 4);
  double sum = 0;
  for (std::size_t i = steps - quarter; i < steps; ++i) sum += values[i].get<double>();
  return sum / static_cast<double>(quarter);
}

nlohmann::json late_loss_ratio(const nlohmann::json& baseline, const nlohmann::json& candidate) {
  const std::size_t common = std::min(curve(baseline).size(), curve(candidate).size());
  const double base = late_loss(baseline, common), mine = late_loss(candidate, common);
  if (common == 0 || base <= 0 || mine <= 0) return nullptr;
  return mine / base;
}

}  // namespace gpubench
