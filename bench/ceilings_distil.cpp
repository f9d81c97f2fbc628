#include "bench/ceilings_distil.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/ceilings/ceilings_file.h"
#include "core/config/errors.h"
#include "core/io/text_parts.h"

namespace gpubench {
namespace {

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
  for (const auto& segment : split_text(run_name, '/')) {
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

// allreduce/, allgather/, reducescatter/: a collective whose results are checked.
bool is_collective(const std::string& area) {
  const auto& names = collective_ceiling_names();
  return std::find(names.begin(), names.end(), area) != names.end();
}

// The collective `run_name` measured (its results must have been right), or "".
std::string checked_collective(const std::string& run_name) {
  const auto s = name_segments(run_name);
  return !s.empty() && is_collective(s[0]) ? s[0] : std::string();
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
  if (is_collective(area) && s.size() == 3)
    return {{{area + "_busbw_gb_per_s", s[1]}, "busbw_gb_per_s"}, {{area + "_algbw_gb_per_s", s[1]}, "algbw_gb_per_s"}};
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

// A collective counts only if every repetition said its results were right.
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

}  // namespace

nlohmann::json distil_ceilings(const nlohmann::json& benchmark_output) {
  if (!benchmark_output.is_object() || !benchmark_output.contains("benchmarks") ||
      !benchmark_output["benchmarks"].is_array())
    throw UsageError("not Google Benchmark JSON output: expected an object with a 'benchmarks' array "
                     "(run gpubench-bench with --benchmark_out_format=json)");

  nlohmann::json ceilings = {{"format", kCeilingsFormat}, {"format_version", kCeilingsFormatVersion}, {"source", "gpubench-bench"}};
  if (benchmark_output.contains("context") && benchmark_output["context"].is_object())
    ceilings["context"] = benchmark_output["context"];
  nlohmann::json from = nlohmann::json::object(), skipped = nlohmann::json::object();

  for (const auto& [run_name, run] : group_by_run(benchmark_output["benchmarks"])) {
    for (const auto& target : targets_for(run_name)) {
      const std::string dotted = join_text(target.path, ".");
      std::string reason = run.skip_reason;
      if (const std::string collective = checked_collective(run_name);
          reason.empty() && !collective.empty() && !results_correct(run))
        reason = collective + " results were wrong in " + run_name;
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

}  // namespace gpubench
