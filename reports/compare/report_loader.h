#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

namespace gpubench {

// The report schema version compare understands.
inline constexpr int kCompareSchemaVersion = 1;

// Reads a gpubench JSON report and checks the structure compare relies on
// (validate_report). `role` names the file in messages: "BASE", "NEW", or "" for none.
// Throws UsageError "<role> report '<path>': <what is wrong>" when the file cannot be
// read, is not JSON, or does not have that structure.
nlohmann::json load_report(const std::string& path, const std::string& role = "");

// One side of a comparison: one report, or several runs of the same matrix.
struct ReportSet {
  std::string name;                    // the path given: a file or a directory
  std::vector<std::string> run_names;  // each run's file
  std::vector<nlohmann::json> runs;    // validated reports, in run_names order
  // Per run: result_key -> index in its results (keys are unique in a valid report),
  // so comparing n configs costs n look-ups, not n scans. Filled by load_report_set.
  std::vector<std::unordered_map<std::string, std::size_t>> result_index;
};

// `path` a report file: a set of one run. A directory: every *.json directly in it, in
// name order (run-01.json, run-02.json, ...: `compare --paired` pairs runs by that order),
// each loaded as by load_report. Throws UsageError naming `role` and the path when it does
// not exist, or a directory holds no *.json.
ReportSet load_report_set(const std::string& path, const std::string& role);

// How a result is named and matched (compare's rows, a page's, an export's benchmarks):
// its config_id; a row of a `gpubench tune` search (it has a "tune" object) adds its batch
// and step, "mlp/cpu/fp32 batch 128 (final 1)": a search measures one stack at several
// batches, and its finalists twice, so its config ids repeat by design.
std::string result_key(const nlohmann::json& result);

// Checks what compare relies on, throwing UsageError naming `role`, `name` (the path) and
// the bad field: a JSON object; schema_version == 1; results an array of objects, each
// with a non-empty string config_id and a string status, their result_key unique (a tune
// row's "tune" an object: phase greedy, batch or final, round >= 0, batch_size >= 1); where present,
// samples.step_ms an array of finite positive numbers, workload.global_batch_size /
// workload.batch_size positive numbers, memory.* non-negative numbers.
void validate_report(const nlohmann::json& report, const std::string& role, const std::string& name);

// "BASE report 'a.json'" ("report 'a.json'" for role ""): how messages name a report.
std::string report_label(const std::string& role, const std::string& name);

}  // namespace gpubench
