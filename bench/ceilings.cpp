#include "bench/ceilings.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <sstream>
#include <vector>

#include "config/errors.h"
#include "io/atomic_file.h"
#include "io/json_text.h"

namespace gpubench {
namespace {

constexpr const char* kFormat = "gpubench-ceilings";
constexpr int kFormatVersion = 1;
constexpr std::size_t kMaxFileBytes = 1 << 20;
constexpr std::size_t kMaxContextBytes = 64 << 10;

// Scalar ceilings and the nested maps, with how many object levels sit above the numbers.
const std::vector<std::string>& scalar_keys() {
  static const std::vector<std::string> keys = {"h2d_pinned_gb_per_s", "h2d_pageable_gb_per_s", "d2h_pinned_gb_per_s",
                                                "d2h_pageable_gb_per_s", "d2d_gb_per_s"};
  return keys;
}
const std::map<std::string, int>& map_keys() {
  static const std::map<std::string, int> keys = {{"matmul_tflops", 2},
                                                  {"allreduce_busbw_gb_per_s", 1},
                                                  {"allreduce_algbw_gb_per_s", 1},
                                                  {"loader_samples_per_s", 2},
                                                  {"train_step_samples_per_s", 2}};
  return keys;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);) parts.push_back(part);
  return parts;
}

std::string join(const std::vector<std::string>& parts, char separator) {
  std::string text;
  for (const auto& part : parts) text += (text.empty() ? "" : std::string(1, separator)) + part;
  return text;
}

// Where one benchmark's number goes: a ceiling path, the JSON field that holds it, a scale.
struct Target {
  std::vector<std::string> path;
  std::string field;
  double scale = 1.0;
};

// Segments of a run name without Google Benchmark's own suffixes ("manual_time",
// "real_time", "repeats:3", ...), which say how it was measured, not what.
std::vector<std::string> name_segments(const std::string& run_name) {
  std::vector<std::string> kept;
  for (const auto& segment : split(run_name, '/')) {
    if (segment == "manual_time" || segment == "real_time" || segment == "process_time") continue;
    bool harness_suffix = false;
    for (const char* prefix : {"iterations:", "repeats:", "threads:", "min_time:", "min_warmup_time:"})
      harness_suffix = harness_suffix || segment.rfind(prefix, 0) == 0;
    if (!harness_suffix) kept.push_back(segment);
  }
  return kept;
}

std::string argument_value(const std::string& segment) {
  const auto colon = segment.find(':');
  return colon == std::string::npos ? segment : segment.substr(colon + 1);
}

// The naming contract with the bench/*_bench.cpp registrations (the smoke test checks it
// end to end): area/what.../arg:value.
std::vector<Target> targets_for(const std::string& run_name) {
  const auto s = name_segments(run_name);
  if (s.empty()) return {};
  const auto& area = s[0];
  if (area == "copy" && s.size() == 3 && s[1] == "d2d") return {{{"d2d_gb_per_s"}, "bytes_per_second", 1e-9}};
  if (area == "copy" && s.size() == 4) return {{{s[1] + "_" + s[2] + "_gb_per_s"}, "bytes_per_second", 1e-9}};
  if (area == "matmul" && s.size() == 4) return {{{"matmul_tflops", s[1], s[2]}, "tflops"}};
  if (area == "allreduce" && s.size() == 3)
    return {{{"allreduce_busbw_gb_per_s", s[1]}, "busbw_gb_per_s"}, {{"allreduce_algbw_gb_per_s", s[1]}, "algbw_gb_per_s"}};
  if (area == "loader" && s.size() == 3) return {{{"loader_samples_per_s", s[1], argument_value(s[2])}, "items_per_second"}};
  if (area == "train_step" && s.size() == 3) return {{{"train_step_samples_per_s", s[1], s[2]}, "items_per_second"}};
  return {};  // a benchmark this format has no ceiling for
}

// One run name's entries: its repetitions, its median aggregate, or why it was skipped.
struct RunEntries {
  std::vector<const nlohmann::json*> repetitions;
  const nlohmann::json* median = nullptr;
  const nlohmann::json* mean = nullptr;
  std::string skip_reason;
};

std::string skip_reason_of(const nlohmann::json& entry) {
  // 1.7 writes error_occurred/error_message; 1.8+ also skipped/skip_message (SkipWithMessage).
  if (entry.value("error_occurred", false)) return entry.value("error_message", std::string("error"));
  if (entry.value("skipped", false)) return entry.value("skip_message", std::string("skipped"));
  return {};
}

std::optional<double> number_field(const nlohmann::json& entry, const std::string& field) {
  const auto it = entry.find(field);
  if (it == entry.end() || !it->is_number()) return std::nullopt;
  const double value = it->get<double>();
  return std::isfinite(value) ? std::optional<double>(value) : std::nullopt;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// An all-reduce counts only if every repetition said its results were right.
bool results_correct(const RunEntries& run) {
  std::vector<const nlohmann::json*> checked = run.repetitions;
  if (checked.empty()) checked = {run.mean ? run.mean : run.median};
  for (const auto* entry : checked)
    if (!entry || number_field(*entry, "correct").value_or(0.0) != 1.0) return false;
  return true;
}

std::optional<double> run_value(const RunEntries& run, const Target& target) {
  if (run.median) return number_field(*run.median, target.field);
  std::vector<double> values;
  for (const auto* entry : run.repetitions)
    if (auto value = number_field(*entry, target.field)) values.push_back(*value);
  if (values.empty()) return std::nullopt;
  return median_of(values);
}

std::map<std::string, RunEntries> group_by_run(const nlohmann::json& benchmarks) {
  std::map<std::string, RunEntries> runs;
  for (const auto& entry : benchmarks) {
    if (!entry.is_object()) continue;
    const std::string name = entry.value("name", std::string());
    const std::string run_name = entry.value("run_name", name);
    auto& run = runs[run_name];
    if (auto reason = skip_reason_of(entry); !reason.empty()) {
      run.skip_reason = reason;
    } else if (entry.value("run_type", std::string("iteration")) == "aggregate") {
      const std::string aggregate = entry.value("aggregate_name", std::string());
      if (aggregate == "median") run.median = &entry;
      if (aggregate == "mean") run.mean = &entry;
    } else {
      run.repetitions.push_back(&entry);
    }
  }
  return runs;
}

// The slot at `path`, creating objects on the way. Not a json_pointer: its numeric tokens
// ("workers" 0, 1, 2) would create arrays where the format has objects.
nlohmann::json& object_at(nlohmann::json& root, const std::vector<std::string>& path) {
  nlohmann::json* node = &root;
  for (const auto& key : path) node = &(*node)[key];
  return *node;
}

// A ceiling is a share's denominator: positive and normal (0 gave "not in the file" later,
// a denormal an inf share), and at most kMaxCeiling (1e308 gave subnormal shares); no
// machine's GB/s, TFLOP/s or samples/s comes near it.
constexpr double kMaxCeiling = 1e9;

bool usable_ceiling(double value) { return std::isnormal(value) && value > 0 && value <= kMaxCeiling; }

void check_number(const nlohmann::json& value, const std::string& path, const std::string& origin) {
  if (!value.is_number() || !usable_ceiling(value.get<double>()))
    throw UsageError(origin + ": ceiling '" + path + "' is " + value.dump() +
                     ", expected a number above 0 and at most 1e9 (leave out a ceiling that was not measured)");
}

// The keys each level of a nested map may have: a closed set where the benchmarks have
// one (devices, backends), else a benchmark name's segment (a workload, a precision, a
// worker count).
std::vector<std::vector<std::string>> allowed_levels(const std::string& map) {
  const std::vector<std::string> devices = {"cpu", "cuda"}, backends = {"gloo", "nccl"}, any;
  if (map == "matmul_tflops" || map == "train_step_samples_per_s") return {devices, any};
  if (map == "allreduce_busbw_gb_per_s" || map == "allreduce_algbw_gb_per_s") return {backends};
  return {any, any};  // loader_samples_per_s: workload, workers
}

bool is_segment_name(const std::string& key) {
  return !key.empty() && key.size() <= 64 && std::all_of(key.begin(), key.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

void check_map(const nlohmann::json& value, const std::vector<std::vector<std::string>>& levels, std::size_t level,
               const std::string& path, const std::string& origin) {
  if (level == levels.size()) return check_number(value, path, origin);
  if (!value.is_object())
    throw UsageError(origin + ": '" + path + "' is " + value.dump() + ", expected an object");
  const std::vector<std::string>& allowed = levels[level];
  for (const auto& [key, child] : value.items()) {
    const bool known = allowed.empty() ? is_segment_name(key) : std::find(allowed.begin(), allowed.end(), key) != allowed.end();
    if (!known)
      throw UsageError(origin + ": unknown key '" + path + "." + key + "', expected " +
                       (allowed.empty() ? std::string("a benchmark name's part (a-z, 0-9, '_', '-')") : "one of " + join(allowed, ',')));
    check_map(child, levels, level + 1, path + "." + key, origin);
  }
}

void check_strings(const nlohmann::json& value, const std::string& key, const std::string& origin) {
  if (!value.is_object()) throw UsageError(origin + ": '" + key + "' must be an object of strings");
  for (const auto& [name, text] : value.items())
    if (!text.is_string())
      throw UsageError(origin + ": '" + key + "." + name + "' is " + text.dump() + ", expected a string");
}

}  // namespace

nlohmann::json distil_ceilings(const nlohmann::json& benchmark_output) {
  if (!benchmark_output.is_object() || !benchmark_output.contains("benchmarks") ||
      !benchmark_output["benchmarks"].is_array())
    throw UsageError("not Google Benchmark JSON output: expected an object with a 'benchmarks' array "
                     "(run gpubench-bench with --benchmark_out_format=json)");

  nlohmann::json ceilings = {{"format", kFormat}, {"format_version", kFormatVersion}, {"source", "gpubench-bench"}};
  if (benchmark_output.contains("context") && benchmark_output["context"].is_object())
    ceilings["context"] = benchmark_output["context"];
  nlohmann::json from = nlohmann::json::object(), skipped = nlohmann::json::object();

  for (const auto& [run_name, run] : group_by_run(benchmark_output["benchmarks"])) {
    for (const auto& target : targets_for(run_name)) {
      const std::string dotted = join(target.path, '.');
      std::string reason = run.skip_reason;
      if (reason.empty() && target.path[0].rfind("allreduce_", 0) == 0 && !results_correct(run))
        reason = "all-reduce results were wrong in " + run_name;
      if (!reason.empty()) {
        if (!skipped.contains(dotted)) skipped[dotted] = reason;
        continue;
      }
      const auto value = run_value(run, target);
      if (!value) continue;
      if (!usable_ceiling(*value * target.scale)) {
        if (!skipped.contains(dotted)) skipped[dotted] = "measured " + std::to_string(*value * target.scale) + " in " + run_name;
        continue;
      }
      nlohmann::json& slot = object_at(ceilings, target.path);
      const double scaled = *value * target.scale;
      if (slot.is_null() || slot.get<double>() < scaled) {
        slot = scaled;
        from[dotted] = run_name;
      }
    }
  }
  // A size that ran sets the ceiling even where another size of the same key was skipped.
  for (const auto& [dotted, run_name] : from.items()) skipped.erase(dotted);
  ceilings["from"] = from;
  ceilings["skipped"] = skipped;
  return ceilings;
}

void validate_ceilings(const nlohmann::json& ceilings, const std::string& origin) {
  if (!ceilings.is_object()) throw UsageError(origin + ": expected a JSON object of ceilings");
  if (ceilings.value("format", std::string()) != kFormat)
    throw UsageError(origin + ": 'format' is " + (ceilings.contains("format") ? ceilings["format"].dump() : "missing") +
                     ", expected \"" + kFormat + "\" (write one with gpubench-bench --ceilings-out)");
  const auto& version = ceilings.contains("format_version") ? ceilings["format_version"] : nlohmann::json();
  // Compared as the 64-bit integer JSON holds: get<int>() would truncate 4294967297 to 1.
  if (!version.is_number_integer() || version.get<std::int64_t>() != kFormatVersion)
    throw UsageError(origin + ": 'format_version' is " + version.dump() + ", this gpubench reads version " +
                     std::to_string(kFormatVersion));
  const auto& scalars = scalar_keys();
  for (const auto& [key, value] : ceilings.items()) {
    if (key == "format" || key == "format_version") continue;
    if (key == "source") {
      if (!value.is_string()) throw UsageError(origin + ": 'source' must be a string");
    } else if (key == "context") {
      if (!value.is_object()) throw UsageError(origin + ": 'context' must be an object");
      // Copied into every report rewrite: Google Benchmark's context is a few hundred bytes.
      if (const std::size_t bytes = value.dump().size(); bytes > kMaxContextBytes)
        throw UsageError(origin + ": 'context' is " + std::to_string(bytes) + " bytes, expected at most " +
                         std::to_string(kMaxContextBytes) + " (Google Benchmark's run context)");
    } else if (key == "from" || key == "skipped") {
      check_strings(value, key, origin);
    } else if (std::find(scalars.begin(), scalars.end(), key) != scalars.end()) {
      check_number(value, key, origin);
    } else if (auto map = map_keys().find(key); map != map_keys().end()) {
      check_map(value, allowed_levels(key), 0, key, origin);
    } else {
      std::string expected = join(scalars, ',');
      for (const auto& [name, depth] : map_keys()) expected += "," + name;
      throw UsageError(origin + ": unknown key '" + key + "', expected one of format,format_version,source,context," +
                       "from,skipped," + expected);
    }
  }
}

nlohmann::json load_ceilings(const std::string& path) {
  const std::string text = read_file(path, "ceilings file");
  if (text.size() > kMaxFileBytes)
    throw UsageError("ceilings file " + path + " is " + std::to_string(text.size()) + " bytes, expected at most " +
                     std::to_string(kMaxFileBytes) + " (gpubench-bench writes a few KiB)");
  nlohmann::json ceilings;
  try {
    ceilings = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {  // parse_error, and out_of_range for 1e400
    throw UsageError("ceilings file " + path + " is not JSON: " + error.what());
  }
  validate_ceilings(ceilings, "ceilings file " + path);
  return ceilings;
}

void write_ceilings(const std::string& path, const nlohmann::json& ceilings) {
  write_file_atomically(path, json_text(ceilings, 2) + "\n");
}

std::optional<double> find_ceiling(const nlohmann::json& ceilings, const std::string& dotted_path) {
  const nlohmann::json* node = &ceilings;
  for (const auto& key : split(dotted_path, '.')) {
    if (!node->is_object() || !node->contains(key)) return std::nullopt;
    node = &(*node)[key];
  }
  if (!node->is_number()) return std::nullopt;
  return node->get<double>();
}

}  // namespace gpubench
