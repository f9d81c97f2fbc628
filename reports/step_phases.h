#pragma once
#include <nlohmann/json.hpp>

namespace gpubench {

// Where a row's step time goes: on a CUDA row the device's phases (CUDA events: a phase's
// time on the GPU's timeline, stalls waiting for the host included), since by default the
// host's phase times there are only the time to queue each phase; else the host's.
inline nlohmann::json step_phases(const nlohmann::json& row) {
  if (row.contains("device_phases") && row["device_phases"].is_object()) return row["device_phases"];
  return row.value("phases", nlohmann::json::object());
}

}  // namespace gpubench
