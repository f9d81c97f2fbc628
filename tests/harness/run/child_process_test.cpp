#include "harness/run/child_process.h"

#include <gtest/gtest.h>

#include <csignal>

namespace gpubench {
namespace {

TEST(ChildProcess, ReportsExitCodes) {
  const auto ok = run_child_process({"/bin/sh", "-c", "exit 0"}, 10);
  EXPECT_EQ(ok.exit_code, 0);
  const auto failed = run_child_process({"/bin/sh", "-c", "exit 3"}, 10);
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_EQ(failed.describe(), "exit code 3");
  EXPECT_GT(ok.peak_rss_bytes, 0u);
}

TEST(ChildProcess, ReportsACrashBySignal) {
  const auto crashed = run_child_process({"/bin/sh", "-c", "kill -SEGV $$"}, 10);
  EXPECT_EQ(crashed.signal, SIGSEGV);
  EXPECT_NE(crashed.describe().find("killed by signal 11"), std::string::npos) << crashed.describe();
}

TEST(ChildProcess, KillsAChildThatRunsPastItsTimeout) {
  const auto slow = run_child_process({"/bin/sleep", "30"}, 0.3);
  EXPECT_TRUE(slow.timed_out);
  EXPECT_LT(slow.wall_s, 10);
  EXPECT_NE(slow.describe().find("timed out"), std::string::npos);
}

TEST(ChildProcess, MissingExecutableExits127) {
  EXPECT_EQ(run_child_process({"/nonexistent/binary"}, 10).exit_code, 127);
}

}  // namespace
}  // namespace gpubench
