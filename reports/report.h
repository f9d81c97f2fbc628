#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

constexpr int kReportSchemaVersion = 1;

const char* git_commit();  // generated at build time (cmake/GitCommit.cmake)

// Assembles the report: schema_version, tool, created_utc, command, env, matrix,
// results[] (one per config, in matrix order) and comparisons[].
// With `ceilings` (a loaded gpubench-bench ceilings file, or null) each row also says how
// close it gets to the machine's measured ceilings.
nlohmann::json build_report(const nlohmann::json& env, const nlohmann::json& matrix,
                            const std::vector<nlohmann::json>& results, const std::string& command_line,
                            const nlohmann::json& ceilings = nullptr);

}  // namespace gpubench
