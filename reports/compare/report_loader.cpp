#include "reports/compare/report_loader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>
#include <system_error>

#include "core/config/errors.h"
#include "core/io/atomic_file.h"

namespace gpubench {
namespace {

using nlohmann::json;

std::string type_of(const json& value) {
  if (value.is_number()) return "a number (" + value.dump() + ")";
  if (value.is_string()) return "a string (" + value.dump() + ")";
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return value.dump();  // true, false, null
}

// A config id's shape (workload/device/precision[/...]), checked on load: what a report
// names is printed in tables and used as a key, and a report is untrusted input.
bool is_config_id_syntax(const std::string& id) {
  if (id.empty() || id.size() > 200 || id.front() == '/' || id.back() == '/' || id.find("//") != std::string::npos)
    return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '+' || c == '/';
  });
}

// A tune search's step of a row (cli/tune_command.cpp writes it): what result_key names.
void validate_tune_step(const json& tune, const std::string& config) {
  const auto whole = [&](const char* key, long long min) {
    const auto value = tune.find(key);
    return value != tune.end() && value->is_number_integer() && value->get<long long>() >= min;
  };
  const auto phase = tune.is_object() ? tune.find("phase") : tune.end();
  const bool known_phase = tune.is_object() && phase != tune.end() && phase->is_string() &&
                           (*phase == "greedy" || *phase == "batch" || *phase == "final");
  if (!known_phase || !whole("round", 0) || !whole("batch_size", 1))
    throw UsageError(config + " has \"tune\" " + (tune.is_object() ? tune.dump() : type_of(tune)) +
                     ", expected a tune step {\"phase\": greedy, batch or final, \"round\": a whole number >= 0, "
                     "\"batch_size\": a whole number >= 1}");
}

// Normal, not merely finite: a denormal step time (1e-320) would give NaN ratios downstream.
constexpr double kMinStepMs = 1e-6;

// Bounds on the work a step does: far above any real run, far below overflow once divided by
// a nanosecond step.
constexpr double kMaxSamplesPerStep = 1e12;
constexpr double kMaxFlopsPerStep = 1e30;

bool is_positive_number(const json& value) {
  return value.is_number() && std::isnormal(value.get<double>()) && value.get<double>() > 0;
}

void validate_result(const json& result, std::size_t index, const std::string& label, std::set<std::string>& seen) {
  const std::string where = label + ": results[" + std::to_string(index) + "]";
  if (!result.is_object()) throw UsageError(where + " is " + type_of(result) + ", expected an object");
  const auto id = result.find("config_id");
  if (id == result.end()) throw UsageError(where + " lacks \"config_id\"");
  if (!id->is_string() || id->get<std::string>().empty())
    throw UsageError(where + " has config_id " + id->dump() + ", expected a non-empty string");
  if (!is_config_id_syntax(id->get<std::string>()))
    throw UsageError(where + " has config_id " + id->dump() +
                     ", expected a config id such as mlp/cpu/fp32 (letters, digits, '.', '_', '-', '+', one '/' "
                     "between parts, at most 200 characters)");
  const std::string config = where + " (" + id->get<std::string>() + ")";
  if (const auto tune = result.find("tune"); tune != result.end()) validate_tune_step(*tune, config);
  if (!seen.insert(result_key(result)).second)
    throw UsageError(config + ": " + (result.contains("tune") ? "'" + result_key(result) + "'" : std::string("config_id")) +
                     " appears twice, expected one result per config (in a tune search: per config, batch and step)");
  const auto status = result.find("status");
  if (status == result.end())
    throw UsageError(config + " lacks \"status\" (expected \"ok\", \"skipped\" or \"failed\")");
  if (!status->is_string()) throw UsageError(config + " has status " + status->dump() + ", expected a string");

  if (const auto samples = result.find("samples"); samples != result.end() && !samples->is_null()) {
    if (!samples->is_object())
      throw UsageError(config + ": \"samples\" is " + type_of(*samples) + ", expected an object");
    if (const auto steps = samples->find("step_ms"); steps != samples->end()) {
      if (!steps->is_array())
        throw UsageError(config + ": samples.step_ms is " + type_of(*steps) + ", expected an array of milliseconds");
      // At least a nanosecond: below that, samples/s overflows to inf.
      for (std::size_t i = 0; i < steps->size(); ++i)
        if (!is_positive_number((*steps)[i]) || (*steps)[i].get<double>() < kMinStepMs)
          throw UsageError(config + ": samples.step_ms[" + std::to_string(i) + "] is " + type_of((*steps)[i]) +
                           ", expected a positive number of milliseconds, at least 1e-06 (1 ns)");
    }
  }
  // The work a step does, which compare's rates multiply by 1000/step_ms: bounded so that a
  // rate stays finite (1e308 samples gave a NaN median that compare then called a change).
  if (const auto workload = result.find("workload"); workload != result.end() && workload->is_object()) {
    for (const char* key : {"global_batch_size", "batch_size"}) {
      const auto size = workload->find(key);
      if (size != workload->end() && (!is_positive_number(*size) || size->get<double>() > kMaxSamplesPerStep))
        throw UsageError(config + ": workload." + key + " is " + type_of(*size) +
                         ", expected a positive number of samples, at most 1e12");
    }
  }
  if (const auto flops = result.find("flops"); flops != result.end() && flops->is_object())
    if (const auto per_step = flops->find("training_per_step");
        per_step != flops->end() && !per_step->is_null() &&
        (!is_positive_number(*per_step) || per_step->get<double>() > kMaxFlopsPerStep))
      throw UsageError(config + ": flops.training_per_step is " + type_of(*per_step) +
                       ", expected a positive number of FLOPs, at most 1e30");
  if (const auto memory = result.find("memory"); memory != result.end() && memory->is_object()) {
    for (const auto& [key, value] : memory->items()) {
      // Only the scalar byte counts are metrics; per-step series (rss_bytes_per_step, ...) are not.
      if (value.is_null() || key.size() < 6 || key.compare(key.size() - 6, 6, "_bytes") != 0) continue;
      if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
        throw UsageError(config + ": memory." + key + " is " + type_of(value) + ", expected a number of bytes >= 0");
    }
  }
}

// ReportSet::result_index for every run of `set`.
void index_results(ReportSet& set) {
  set.result_index.clear();
  for (const json& run : set.runs) {
    auto& index = set.result_index.emplace_back();
    const json& results = run["results"];
    for (std::size_t i = 0; i < results.size(); ++i) index.emplace(result_key(results[i]), i);
  }
}

}  // namespace

std::string report_label(const std::string& role, const std::string& name) {
  return (role.empty() ? "" : role + " ") + "report '" + name + "'";
}

std::string result_key(const json& result) {
  const std::string id = result.value("config_id", "");
  const auto tune = result.find("tune");
  if (tune == result.end() || !tune->is_object()) return id;
  const auto whole = [&](const char* key) {
    const auto value = tune->find(key);
    return value != tune->end() && value->is_number_integer() ? std::to_string(value->get<long long>()) : "?";
  };
  const auto phase = tune->find("phase");
  return id + " batch " + whole("batch_size") + " (" +
         (phase != tune->end() && phase->is_string() ? phase->get<std::string>() : "?") + " " + whole("round") + ")";
}

void validate_report(const json& report, const std::string& role, const std::string& name) {
  const std::string label = report_label(role, name);
  if (!report.is_object())
    throw UsageError(label + ": the top level is " + type_of(report) + ", expected a JSON object (a gpubench report)");
  const auto version = report.find("schema_version");
  if (version == report.end())
    throw UsageError(label + " lacks \"schema_version\" (expected " + std::to_string(kCompareSchemaVersion) +
                     "): is it a gpubench report?");
  if (!version->is_number_integer() || version->get<long long>() != kCompareSchemaVersion)
    throw UsageError(label + " has schema_version " + version->dump() + ", expected " +
                     std::to_string(kCompareSchemaVersion));
  const auto results = report.find("results");
  if (results == report.end()) throw UsageError(label + " lacks \"results\" (expected an array of config results)");
  if (!results->is_array())
    throw UsageError(label + ": \"results\" is " + type_of(*results) + ", expected an array of config results");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < results->size(); ++i) validate_result((*results)[i], i, label, seen);
}

json load_report(const std::string& path, const std::string& role) {
  const std::string text = read_file(path, role.empty() ? "report" : role + " report");
  json report;
  try {
    report = json::parse(text);
  } catch (const json::exception& error) {  // parse_error, and out_of_range for 1e400 (number overflow)
    throw UsageError(report_label(role, path) + " is not valid JSON: " + error.what());
  }
  validate_report(report, role, path);
  return report;
}

ReportSet load_report_set(const std::string& path, const std::string& role) {
  namespace fs = std::filesystem;
  ReportSet set;
  set.name = path;
  std::error_code error;
  if (!fs::is_directory(path, error)) {
    set.run_names.push_back(path);
    set.runs.push_back(load_report(path, role));  // names the file when it does not exist
    index_results(set);
    return set;
  }
  fs::directory_iterator entry(path, error), end;
  for (; !error && entry != end; entry.increment(error)) {
    std::error_code is_dir_error;  // a dangling link is listed here and named by load_report
    if (entry->path().extension() == ".json" && !fs::is_directory(entry->path(), is_dir_error))
      set.run_names.push_back(entry->path().string());
  }
  if (error) throw UsageError(role + " directory '" + path + "' cannot be read: " + error.message());
  if (set.run_names.empty())
    throw UsageError(role + " directory '" + path +
                     "' holds no *.json reports: expected one gpubench report per run (run-01.json, run-02.json, ...)");
  std::sort(set.run_names.begin(), set.run_names.end());
  for (const std::string& name : set.run_names) set.runs.push_back(load_report(name, role));
  index_results(set);
  return set;
}

}  // namespace gpubench
