#pragma once
#include <nlohmann/json.hpp>

#include "core/config/config.h"

namespace gpubench {

// A result row's `config` object: the id's parts, as every row (ok, failed, skipped) has them.
nlohmann::json config_json(const Config& config);

}  // namespace gpubench
