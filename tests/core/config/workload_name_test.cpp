#include "core/config/workload_name.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

namespace gpubench {
namespace {

std::string source_text(const std::string& relative) {
  std::ifstream in(std::string(GPUBENCH_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// --model Tiny_LM.v2=... was accepted and its report written, and then the report schema and
// scripts/plot_report.py refused its ids (they allowed only lowercase names): one definition,
// spelled the same in the three places (issue 61, item 21).
TEST(WorkloadName, TheSchemaAndThePlotScriptSpellTheOneDefinition) {
  EXPECT_NE(source_text("reports/schema/report.schema.json").find(std::string("\"pattern\": \"") + kConfigIdPattern + "\""),
            std::string::npos)
      << "the schema's config_id pattern is not kConfigIdPattern";
  EXPECT_NE(source_text("scripts/plot_report.py").find(std::string("re.compile(r\"") + kConfigIdPattern + "\")"),
            std::string::npos)
      << "plot_report.py's CONFIG_ID is not kConfigIdPattern";
}

// What the flag parser accepts as a name, the pattern accepts as an id's first segment, and
// what it refuses, the pattern refuses.
TEST(WorkloadName, TheParserAndThePatternAgree) {
  const std::regex id(kConfigIdPattern);
  for (const std::string& name : std::vector<std::string>{"mlp", "Tiny_LM.v2", "qwen3-moe", "A", "x9", std::string(64, 'a')}) {
    EXPECT_TRUE(is_workload_name(name)) << name;
    EXPECT_TRUE(std::regex_match(name + "/cpu/fp32/ddp-2", id)) << name;
  }
  for (const std::string& name : std::vector<std::string>{"", "_x", ".x", "-x", "a/b", "a,b", "a=b", "a b", std::string(65, 'a')}) {
    EXPECT_FALSE(is_workload_name(name)) << name;
    EXPECT_FALSE(std::regex_match(name + "/cpu/fp32", id)) << name;
  }
}

}  // namespace
}  // namespace gpubench
