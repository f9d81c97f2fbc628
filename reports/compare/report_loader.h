#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

namespace gpubench {

// The report schema version compare understands.
inline constexpr int kCompareSchemaVersion = 1;

// Reads a gpubench JSON report and checks the structure compare relies on
// (validate_report). `role` names the file in messages: "BASE", "NEW".
// Throws UsageError "<role> report '<path>': <what is wrong>" when the file cannot be
// read, is not JSON, or does not have that structure.
nlohmann::json load_report(const std::string& path, const std::string& role = "report");

// One side of a comparison: one report, or several runs of the same matrix.
struct ReportSet {
  std::string name;                    // the path given: a file or a directory
  std::vector<std::string> run_names;  // each run's file
  std::vector<nlohmann::json> runs;    // validated reports, in run_names order
  // Per run: config_id -> index in its results (config ids are unique in a valid report),
  // so comparing n configs costs n look-ups, not n scans. Filled by load_report_set.
  std::vector<std::unordered_map<std::string, std::size_t>> result_index;
};

// `path` a report file: a set of one run. A directory: every *.json directly in it, in
// name order (run-01.json, run-02.json, ...: `compare --paired` pairs runs by that order),
// each loaded as by load_report. Throws UsageError naming `role` and the path when it does
// not exist, or a directory holds no *.json.
ReportSet load_report_set(const std::string& path, const std::string& role);

// Checks what compare relies on, throwing UsageError naming `role`, `name` (the path) and
// the bad field: a JSON object; schema_version == 1; results an array of objects, each
// with a non-empty string config_id (unique) and a string status; where present,
// samples.step_ms an array of finite positive numbers, workload.global_batch_size /
// workload.batch_size positive numbers, memory.* non-negative numbers.
void validate_report(const nlohmann::json& report, const std::string& role, const std::string& name);

// "BASE report 'a.json'": how messages name a report.
std::string report_label(const std::string& role, const std::string& name);

}  // namespace gpubench
