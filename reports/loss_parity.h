#pragma once
#include <nlohmann/json.hpp>

namespace gpubench {

// Loss parity of two rows trained on the same seed and data: the candidate's late loss
// over the baseline's, both taken over the same steps (the last quarter of the steps both
// ran, since the stopping rule may end configs at different counts). Null when either row
// has no loss curve.
nlohmann::json late_loss_ratio(const nlohmann::json& baseline, const nlohmann::json& candidate);

// The mean loss over the last quarter of the first `steps` steps of a row's curve.
double late_loss(const nlohmann::json& row, std::size_t steps);

}  // namespace gpubench
