#pragma once
// Validates a report against reports/schema/report.schema.json (the contract) with
// valijson; returns every violation as text, empty when the report is valid.
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

namespace gpubench::test_support {

inline std::string schema_violations(const nlohmann::json& report, const std::string& schema_path) {
  std::ifstream in(schema_path);
  if (!in) return "cannot read schema " + schema_path;
  const nlohmann::json schema_json = nlohmann::json::parse(in);
  valijson::Schema schema;
  valijson::SchemaParser parser;
  valijson::adapters::NlohmannJsonAdapter schema_adapter(schema_json);
  parser.populateSchema(schema_adapter, schema);
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter report_adapter(report);
  if (validator.validate(schema, report_adapter, &results)) return "";
  std::string text;
  valijson::ValidationResults::Error error;
  while (results.popError(error)) {
    std::string where;
    for (const auto& part : error.context) where += part;
    text += where + ": " + error.description + "\n";
  }
  return text;
}

}  // namespace gpubench::test_support
