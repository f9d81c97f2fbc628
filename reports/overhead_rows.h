#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

// The --overhead section as display rows (header first), one per instrumented level of
// each config that measured it; only the header when none did. Shared by the table and
// markdown printers.
//   config | level | step ms | probe CPU per step | added [95% CI] | vs bare | target | judgement
std::vector<std::vector<std::string>> overhead_rows(const nlohmann::json& report);

}  // namespace gpubench
