#pragma once
#include <nlohmann/json.hpp>

#include "core/config/config.h"
#include "core/config/run_settings.h"

namespace gpubench {

// Runs one configuration in this process, start to finish: dataset, DataLoader, model,
// optimizer, training loop with probes, checkpoint round trip. Returns the result object
// (status "ok"); throws on failure (the caller turns it into status "failed").
nlohmann::json run_config_in_process(const Config& config, const RunSettings& settings);

}  // namespace gpubench
