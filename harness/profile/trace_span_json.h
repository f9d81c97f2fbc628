#pragma once
#include <nlohmann/json.hpp>

#include "harness/profile/trace_probe.h"

namespace gpubench {

// A span set as plain JSON, so a config's child process can hand its spans to the parent,
// which merges every config into one trace file.
nlohmann::json to_json(const TraceSpanSet& set);
TraceSpanSet trace_span_set_from_json(const nlohmann::json& json);

}  // namespace gpubench
