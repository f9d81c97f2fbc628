#include "reports/compare/environment_diff.h"

#include <set>

namespace gpubench {
namespace {

using nlohmann::json;

// The value at a JSON pointer, or null when any step is missing.
json value_at(const json& report, const std::string& pointer) {
  const json::json_pointer path(pointer);
  return report.contains(path) ? report.at(path) : json();
}

std::string shown(const json& value) {
  if (value.is_null()) return "<missing>";
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

// GPU names as one comparable string: "NVIDIA H200, NVIDIA H200", "none".
json gpu_names(const json& report) {
  const json devices = value_at(report, "/env/cuda/devices");
  if (!devices.is_array()) return value_at(report, "/env/cuda").is_null() ? json() : json("none");
  std::string names;
  for (const json& device : devices) {
    const std::string name = device.is_object() && device.contains("name") ? shown(device["name"]) : "<unnamed>";
    names += (names.empty() ? "" : ", ") + name;
  }
  return names.empty() ? json("none") : json(names);
}

}  // namespace

std::vector<std::string> environment_warnings(const json& base, const json& next, const std::string& base_label,
                                              const std::string& next_label) {
  std::vector<std::string> warnings;
  const bool base_env = base.contains("env") && base["env"].is_object();
  const bool next_env = next.contains("env") && next["env"].is_object();
  const std::string no_env = " has no env record: cannot check that both runs used the same machine";
  if (!base_env) warnings.push_back(base_label + no_env);
  if (!next_env) warnings.push_back(next_label + no_env);

  const auto check = [&](const std::string& what, const json& a, const json& b) {
    if (a.is_null() && b.is_null()) return;
    if (a != b) warnings.push_back(what + " differs: " + base_label + " " + shown(a) + ", " + next_label + " " + shown(b));
  };
  if (base_env && next_env) {
    check("GPU", gpu_names(base), gpu_names(next));
    for (const char* key : {"cpu_model", "cores", "threads", "torch_version", "torch_cuda", "blas"})
      check(key, value_at(base, std::string("/env/") + key), value_at(next, std::string("/env/") + key));
  }
  check("matrix preset", value_at(base, "/matrix/preset"), value_at(next, "/matrix/preset"));
  return warnings;
}

std::vector<std::string> workload_warnings(const std::string& config_id, const json& base_result,
                                           const json& next_result) {
  std::vector<std::string> warnings;
  const json a = base_result.value("workload", json::object());
  const json b = next_result.value("workload", json::object());
  if (!a.is_object() || !b.is_object()) return warnings;
  std::set<std::string> keys;
  for (const auto& item : a.items()) keys.insert(item.key());
  for (const auto& item : b.items()) keys.insert(item.key());
  for (const std::string& key : keys) {
    const json va = a.contains(key) ? a[key] : json();
    const json vb = b.contains(key) ? b[key] : json();
    if (va != vb)
      warnings.push_back(config_id + ": workload." + key + " differs: BASE " + shown(va) + ", NEW " + shown(vb));
  }
  return warnings;
}

}  // namespace gpubench
