#pragma once
#include <nlohmann/json.hpp>

#include "core/config/config.h"
#include "core/config/run_settings.h"

namespace gpubench {

// The row's "timing" section: how this config's steps met the device and what its phase
// times mean (DESIGN.md, "Measuring on a GPU as a real loop runs").
//   {"method": "host" | "events" | "sync_phases", "loss_read": ..., "phases": ...,
//    "device_phases": ... (CUDA)}
nlohmann::json timing_json(const Config& config, const RunSettings& settings);

}  // namespace gpubench
