#pragma once
// Reading reports back in end-to-end tests.
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace gpubench::test_support {

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// The result row with this config id, or null.
inline const nlohmann::json* find_row(const nlohmann::json& report, const std::string& id) {
  for (const auto& row : report["results"])
    if (row["config_id"] == id) return &row;
  return nullptr;
}

}  // namespace gpubench::test_support
