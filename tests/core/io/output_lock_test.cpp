// One writer per output (issue 61, item 12): a second lock on a file is refused naming the
// holder's pid; letting go removes the lock file, and the next run takes it; a stream
// written through needs none; a long name's lock file still fits a file name.
#include "core/io/output_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "core/config/errors.h"
#include "support/run_command.h"

namespace gpubench {
namespace {

TEST(OutputLock, ASecondWriterIsRefusedNamingTheHolder) {
  const std::string path = test_support::make_temp_dir("output-lock") + "/r.json";
  std::optional<OutputLock> first(std::in_place, path, "--out");
  ASSERT_TRUE(first->held());
  EXPECT_EQ(first->lock_path(), path + ".lock");
  try {
    OutputLock second(path, "--out");
    ADD_FAILURE() << "two writers of " << path;
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()), "--out '" + path + "': another gpubench (pid " + std::to_string(::getpid()) +
                                             ") is writing '" + path + "' (it holds '" + path +
                                             ".lock'): two runs would replace each other's rows; expected another "
                                             "--out, or this run after that one ends");
  }
  first.reset();
  EXPECT_FALSE(std::filesystem::exists(path + ".lock")) << "no lock file left behind";
  const OutputLock next(path, "--out");
  EXPECT_TRUE(next.held());
}

// A lock file a killed run left (its pid in it, nobody holding it) is taken over.
TEST(OutputLock, ALockFileNobodyHoldsIsTakenOver) {
  const std::string path = test_support::make_temp_dir("output-lock-stale") + "/r.json";
  std::ofstream(path + ".lock") << "999999\n";
  const OutputLock lock(path, "--out");
  EXPECT_TRUE(lock.held());
}

TEST(OutputLock, AStreamWrittenThroughTakesNoLock) {
  const OutputLock lock("/dev/null", "--out");
  EXPECT_FALSE(lock.held());
  EXPECT_FALSE(std::filesystem::exists("/dev/null.lock"));
}

TEST(OutputLock, ALongNamesLockFileIsCutToFit) {
  const std::string name(253, 'r');
  const std::string lock = output_lock_path("/some/dir/" + name);
  EXPECT_EQ(lock.size() - std::string("/some/dir/").size(), 255u);
  EXPECT_EQ(lock.substr(lock.size() - 5), ".lock");
  EXPECT_EQ(output_lock_path("r.json"), "r.json.lock");
}

}  // namespace
}  // namespace gpubench
