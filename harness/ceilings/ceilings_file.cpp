#include "harness/ceilings/ceilings_file.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <sstream>
#include <vector>

#include "core/config/errors.h"
#include "core/io/atomic_file.h"
#include "core/io/json_text.h"
#include "core/io/text_parts.h"

namespace gpubench {
namespace {

constexpr const char* kFormat = kCeilingsFormat;
constexpr int kFormatVersion = kCeilingsFormatVersion;
constexpr std::size_t kMaxFileBytes = 1 << 20;
constexpr std::size_t kMaxContextBytes = 64 << 10;

// Scalar ceilings and the nested maps, with how many object levels sit above the numbers.
const std::vector<std::string>& scalar_keys() {
  static const std::vector<std::string> keys = {"h2d_pinned_gb_per_s", "h2d_pageable_gb_per_s", "d2h_pinned_gb_per_s",
                                                "d2h_pageable_gb_per_s", "d2d_gb_per_s"};
  return keys;
}
bool is_collective_key(const std::string& key) {
  for (const auto& name : collective_ceiling_names())
    if (key == name + "_busbw_gb_per_s" || key == name + "_algbw_gb_per_s") return true;
  return false;
}
const std::map<std::string, int>& map_keys() {
  static const std::map<std::string, int> keys = [] {
    std::map<std::string, int> levels = {{"matmul_tflops", 2}, {"loader_samples_per_s", 2}, {"train_step_samples_per_s", 2}};
    for (const auto& name : collective_ceiling_names()) {
      levels[name + "_busbw_gb_per_s"] = 1;
      levels[name + "_algbw_gb_per_s"] = 1;
    }
    return levels;
  }();
  return keys;
}

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
  if (is_collective_key(map)) return {backends};
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
                       (allowed.empty() ? std::string("a benchmark name's part (a-z, 0-9, '_', '-')") : "one of " + join_text(allowed, ",")));
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

const std::vector<std::string>& collective_ceiling_names() {
  static const std::vector<std::string> names = {"allreduce", "allgather", "reducescatter"};
  return names;
}

bool usable_ceiling(double value) { return std::isnormal(value) && value > 0 && value <= kMaxCeiling; }

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
      std::string expected = join_text(scalars, ",");
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
  for (const auto& key : split_text(dotted_path, '.')) {
    if (!node->is_object() || !node->contains(key)) return std::nullopt;
    node = &(*node)[key];
  }
  if (!node->is_number()) return std::nullopt;
  return node->get<double>();
}

}  // namespace gpubench
