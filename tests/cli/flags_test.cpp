#include "cli/flags.h"

#include <gtest/gtest.h>

#include "core/config/errors.h"

namespace gpubench {
namespace {

CliOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "gpubench");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

TEST(Flags, DefaultsRunTheWholeMatrix) {
  const CliOptions o = parse({});
  EXPECT_EQ(o.command, CliOptions::Command::Matrix);
  EXPECT_EQ(o.matrix_spec, "all");
  EXPECT_TRUE(o.workloads.empty());
  EXPECT_EQ(o.settings.preset, Preset::Default);
  EXPECT_EQ(o.out, "gpubench-report.json");
  EXPECT_EQ(o.settings.host_malloc, HostMalloc::Retain);
}

TEST(Flags, ParsesEverySetting) {
  const CliOptions o = parse({"--matrix", "cpu", "--workload", "mlp,cnn", "--preset", "quick", "--steps", "7",
                              "--warmup", "0", "--batch-size", "64", "--threads", "2", "--workers", "1", "--seed", "9",
                              "--out", "/tmp/x.json", "--format", "markdown", "--profile-steps", "2:4", "--no-cupti"});
  EXPECT_EQ(o.matrix_spec, "cpu");
  EXPECT_EQ(o.workloads, (std::vector<std::string>{"mlp", "cnn"}));
  EXPECT_EQ(o.settings.steps, 7);
  EXPECT_EQ(o.settings.warmup, 0);
  EXPECT_EQ(o.settings.batch_size, 64);
  EXPECT_EQ(o.settings.threads, 2);
  EXPECT_EQ(o.settings.workers, 1);
  EXPECT_EQ(o.settings.seed, 9u);
  EXPECT_EQ(o.format, "markdown");
  EXPECT_EQ(o.settings.profile_steps, "2:4");
  EXPECT_FALSE(o.settings.cupti);
}

TEST(Flags, SettingsSurviveTheTripToAChildProcess) {
  const CliOptions parent = parse({"--preset", "full", "--steps", "3", "--warmup", "1", "--batch-size", "8", "--threads",
                                   "1", "--workers", "2", "--seed", "5", "--profile-steps", "1:2", "--no-cupti",
                                   "--host-malloc", "glibc", "--expert-gemms", "grouped"});
  const auto args = settings_to_args(parent.settings);
  std::vector<std::string> child_args(args.begin(), args.end());
  const CliOptions child = parse(child_args);
  EXPECT_EQ(child.settings.preset, Preset::Full);
  EXPECT_EQ(child.settings.steps, 3);
  EXPECT_EQ(child.settings.warmup, 1);
  EXPECT_EQ(child.settings.batch_size, 8);
  EXPECT_EQ(child.settings.threads, 1);
  EXPECT_EQ(child.settings.workers, 2);
  EXPECT_EQ(child.settings.seed, 5u);
  EXPECT_EQ(child.settings.profile_steps, "1:2");
  EXPECT_FALSE(child.settings.cupti);
  EXPECT_EQ(child.settings.host_malloc, HostMalloc::Glibc);
  EXPECT_EQ(child.settings.expert_gemms, ExpertGemms::Grouped);
}

TEST(Flags, ListHelpVersionCompare) {
  EXPECT_EQ(parse({"--list"}).command, CliOptions::Command::List);
  EXPECT_EQ(parse({"--help"}).command, CliOptions::Command::Help);
  EXPECT_NE(parse({"--help"}).help_text.find("--matrix"), std::string::npos);
  EXPECT_EQ(parse({"--version"}).command, CliOptions::Command::Version);
  const CliOptions c = parse({"compare", "a.json", "b.json", "--threshold", "3%"});
  EXPECT_EQ(c.command, CliOptions::Command::Compare);
  EXPECT_EQ(c.compare_base, "a.json");
  EXPECT_EQ(c.compare_threshold, "3%");
  EXPECT_FALSE(c.compare_paired);
  EXPECT_EQ(c.compare_alpha, "0.01");
  const CliOptions runs = parse({"compare", "base-runs", "head-runs", "--paired", "--alpha", "0.05"});
  EXPECT_TRUE(runs.compare_paired);
  EXPECT_EQ(runs.compare_alpha, "0.05");
  // Kept as text: compare converts it with its range (CompareCli.AlphaOutsideTheRange...).
  EXPECT_EQ(parse({"compare", "a", "b", "--alpha", "often"}).compare_alpha, "often");
}

// --rules prints the whole table: a --matrix beside it (nonsense or not) was ignored, exit 0.
TEST(Flags, RulesTakeNoMatrix) {
  EXPECT_EQ(parse({"--rules"}).command, CliOptions::Command::Rules);
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--rules", "--matrix", "nonsense"},
                                               {"--rules", "--matrix", "all"}, {"--rules", "--list"},
                                               {"--rules", "--workload", "mlp"}}) {
    try {
      parse(args);
      ADD_FAILURE() << args[1] << " accepted";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("--rules prints the whole table of techniques that do not combine: " + args[1] +
                                               " has no meaning with it"),
                std::string::npos)
          << error.what();
    }
  }
}

TEST(Flags, BadNumbersNameTheFlagTheValueAndTheRange) {
  try {
    parse({"--steps", "0"});
    FAIL();
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "--steps '0' is invalid: expected a whole number from 1 to 1000000");
  }
  EXPECT_THROW(parse({"--steps", "12abc"}), UsageError);
  EXPECT_THROW(parse({"--workers", "-1"}), UsageError);
  EXPECT_THROW(parse({"--seed", ""}), UsageError);
  EXPECT_THROW(parse({"--workload", ""}), UsageError);
  EXPECT_THROW(parse({"--threads", "99999"}), UsageError);
  EXPECT_THROW(parse({"--workload", ","}), UsageError);
  EXPECT_THROW(parse({"--profile-steps", "9:1"}), UsageError);
  EXPECT_THROW(parse({"--bogus"}), UsageError);
  try {
    parse({"--expert-gemms", "cutlass"});
    FAIL();
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "--expert-gemms 'cutlass' is unknown: expected auto, grouped or loop");
  }
}

}  // namespace
}  // namespace gpubench
