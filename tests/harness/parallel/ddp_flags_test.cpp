// The DDP flags: --bucket-mb, --comm-timeout, --nproc.
#include <gtest/gtest.h>

#include "cli/flags.h"
#include "core/config/errors.h"

namespace gpubench {
namespace {

CliOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "gpubench");
  std::vector<const char*> argv;
  for (const auto& arg : args) argv.push_back(arg.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

std::string error_of(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(DdpFlags, DefaultsArePyTorchsAndAMinute) {
  const CliOptions o = parse({});
  EXPECT_EQ(o.settings.bucket_mb, 25);
  EXPECT_EQ(o.settings.comm_timeout_s, 60);
  EXPECT_EQ(o.nproc, 0);
}

TEST(DdpFlags, ParsedAndHandedToTheRanks) {
  const CliOptions o = parse({"--bucket-mb", "0.5", "--comm-timeout", "5", "--nproc", "2"});
  EXPECT_EQ(o.settings.bucket_mb, 0.5);
  EXPECT_EQ(o.settings.comm_timeout_s, 5);
  EXPECT_EQ(o.nproc, 2);
  const auto args = settings_to_args(o.settings);
  const CliOptions child = parse(std::vector<std::string>(args.begin(), args.end()));
  EXPECT_EQ(child.settings.bucket_mb, 0.5);
  EXPECT_EQ(child.settings.comm_timeout_s, 5);
}

TEST(DdpFlags, BadValuesNameTheFlag) {
  EXPECT_NE(error_of({"--bucket-mb", "0"}).find("--bucket-mb '0' is invalid: expected a size in MiB above 0"), std::string::npos);
  EXPECT_NE(error_of({"--comm-timeout", "soon"}).find("--comm-timeout 'soon' is invalid"), std::string::npos);
  EXPECT_NE(error_of({"--comm-timeout", "0.0001"}).find("--comm-timeout '0.0001' is invalid: expected seconds from 1"),
            std::string::npos);
  EXPECT_NE(error_of({"--nproc", "0"}).find("--nproc '0' is invalid"), std::string::npos);
}

}  // namespace
}  // namespace gpubench
