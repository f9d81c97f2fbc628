#pragma once
// Reading reports back in end-to-end tests.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

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

// The rows of a report that ran (status ok); each row that neither ran nor was skipped fails
// the calling test, naming its config and reason.
inline std::vector<const nlohmann::json*> rows_that_ran(const nlohmann::json& report) {
  std::vector<const nlohmann::json*> ran;
  for (const auto& row : report["results"]) {
    const std::string status = row["status"];
    EXPECT_TRUE(status == "ok" || status == "skipped") << row["config_id"] << ": " << row["reason"];
    if (status == "ok") ran.push_back(&row);
  }
  return ran;
}

}  // namespace gpubench::test_support
