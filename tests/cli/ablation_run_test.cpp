// End to end: `--matrix ablation` runs a recipe's ablation on this CPU and prints what each
// part buys; `--rules` prints the one table; docs/techniques.md quotes every rule of it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/config/technique_rules.h"
#include "support/report_json.h"
#include "support/run_command.h"
#include "support/schema_validation.h"

namespace gpubench {
namespace {

TEST(AblationRun, TheCpuAblationOfTheCnnPrintsWhatEachPartBuys) {
  const std::string dir = test_support::make_temp_dir("ablation");
  const auto run = test_support::run_command(std::string(GPUBENCH_EXE) +
                                             " --matrix ablation --workload cnn --preset quick --steps 4 --warmup 1 "
                                             "--batch-size 8 --threads 1 --format table --out " + dir + "/report.json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("what each part of the recipe buys: cnn on cpu"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("alone (plain + part)"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("scaling efficiency"), std::string::npos) << run.output;
  const auto report = test_support::read_json(dir + "/report.json");
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  ASSERT_FALSE(report["matrix"]["recipes"].empty());
  int ablations = 0;
  for (const auto& c : report["comparisons"])
    if (c["kind"] == "ablation") {
      ++ablations;
      EXPECT_LE(c["speedup_ci95"][0].get<double>(), c["speedup"].get<double>());
      EXPECT_GE(c["speedup_ci95"][1].get<double>(), c["speedup"].get<double>());
    }
  // The recipe, and each of its parts (fused Adam, channels-last, bf16 where the CPU has
  // bf16 units) alone and in the stack.
  EXPECT_GE(ablations, 5) << report["comparisons"].dump(1);
}

TEST(AblationRun, RulesArePrintedAndTheDocsQuoteEachOne) {
  const auto run = test_support::run_command(std::string(GPUBENCH_EXE) + " --rules");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::ifstream readme(std::string(GPUBENCH_SOURCE_DIR) + "/docs/techniques.md");
  std::stringstream text;
  text << readme.rdbuf();
  for (const auto& rule : technique_rules()) {
    EXPECT_NE(run.output.find(rule.why), std::string::npos) << rule.why;
    EXPECT_NE(text.str().find(rule.why), std::string::npos) << "docs/techniques.md does not quote the rule: " << rule.why;
  }
}

}  // namespace
}  // namespace gpubench
