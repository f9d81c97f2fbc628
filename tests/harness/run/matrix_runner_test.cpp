#include "harness/run/matrix_runner.h"

#include <csignal>

#include <gtest/gtest.h>

// How a config child's end and the file it left become the row: a file is believed only
// when the process that should have written it ended the way that file says.
namespace gpubench {
namespace {

const Config kConfig = Config::parse("mlp/cpu/fp32");

nlohmann::json ok_row(double samples_per_s) {
  nlohmann::json row = status_row(kConfig, "ok", "");
  row["throughput"]["samples_per_s"]["median"] = samples_per_s;
  return row;
}

ChildOutcome exited(int code) {
  ChildOutcome outcome;
  outcome.exit_code = code;
  return outcome;
}

TEST(ChildRow, AnOkExitKeepsTheWrittenRow) {
  EXPECT_EQ(child_row(kConfig, exited(0), ok_row(1234.0)), ok_row(1234.0));
  const nlohmann::json failed = status_row(kConfig, "failed", "checkpoint round trip: parameters differ");
  EXPECT_EQ(child_row(kConfig, exited(0), failed), failed);
}

// A crashed or failing child never lends its status to a file it did not finish (or that
// someone else wrote): the row fails with the process's own description.
TEST(ChildRow, AnyOtherExitFailsTheConfigWhateverTheFileSays) {
  for (const int code : {1, 2, 134}) {
    const nlohmann::json row = child_row(kConfig, exited(code), ok_row(999999.0));
    EXPECT_EQ(row["status"], "failed") << code;
    EXPECT_EQ(row["reason"], "child process exit code " + std::to_string(code)) << code;
    EXPECT_FALSE(row.contains("throughput")) << code;
  }
  // The failed-with-reason code must come with a failed row.
  EXPECT_EQ(child_row(kConfig, exited(kChildFailedWithReason), ok_row(999999.0))["status"], "failed");
}

TEST(ChildRow, AFailedChildKeepsItsReason) {
  const nlohmann::json failed = status_row(kConfig, "failed", "out of memory: CUDA out of memory");
  EXPECT_EQ(child_row(kConfig, exited(kChildFailedWithReason), failed), failed);
  // Exited otherwise after writing its reason: both are told.
  EXPECT_EQ(child_row(kConfig, exited(1), failed)["reason"], "out of memory: CUDA out of memory (child process exit code 1)");
}

TEST(ChildRow, SignalsTimeoutsAndMissingFilesAreDescribed) {
  ChildOutcome killed;
  killed.signal = SIGSEGV;
  EXPECT_EQ(child_row(kConfig, killed, ok_row(1.0))["reason"].get<std::string>().rfind("child process killed by signal 11", 0), 0u);
  ChildOutcome slow;
  slow.timed_out = true;
  slow.wall_s = 60;
  EXPECT_EQ(child_row(kConfig, slow, ok_row(1.0))["reason"], "child process timed out after 60 s");
  EXPECT_EQ(child_row(kConfig, exited(0), nullptr)["reason"], "child process exit code 0 before writing a result");
}

}  // namespace
}  // namespace gpubench
