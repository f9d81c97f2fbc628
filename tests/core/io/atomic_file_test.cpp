// write_file_atomically's housekeeping and its own-descriptor targets.
#include "core/io/atomic_file.h"
#include "support/file_text.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace gpubench {
namespace {

std::string temp_dir() {
  std::string pattern = "/tmp/gpubench-test-atomic-XXXXXX";
  return ::mkdtemp(pattern.data()) ? pattern : "/tmp";
}

bool exists(const std::string& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0;
}

using test_support::file_text;

// A PID that ran and has ended (a child, reaped).
pid_t ended_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

// `kill -9` during a rewrite leaves OUT.tmp.PID: the next write of OUT removes it, and
// leaves a live writer's temp file and other names alone.
TEST(AtomicFile, AWriteRemovesTheTempFilesOfKilledWriters) {
  const std::string dir = temp_dir(), out = dir + "/report.json";
  const std::string stale = out + ".tmp." + std::to_string(ended_pid());
  const std::string live = out + ".tmp." + std::to_string(::getppid());
  const std::string other = dir + "/other.json.tmp.1";
  for (const auto& path : {stale, live, other}) std::ofstream(path) << "partial";
  write_file_atomically(out, "{}\n");
  EXPECT_EQ(file_text(out), "{}\n");
  EXPECT_FALSE(exists(stale)) << "a dead writer's temp file stays behind";
  EXPECT_TRUE(exists(live)) << "a running writer's temp file was removed";
  EXPECT_TRUE(exists(other));
}

// /dev/stdout names this process's standard output whatever is behind it: with stdout
// redirected to a file it is written through, at the descriptor's offset, not refused as a
// link to a regular file.
TEST(AtomicFile, TheProcessesOwnDescriptorIsWrittenThrough) {
  const std::string dir = temp_dir(), file = dir + "/stdout.txt";
  std::fflush(stdout);
  const int saved = ::dup(1);
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ::dup2(fd, 1);
  ::close(fd);
  ASSERT_EQ(::write(1, "first\n", 6), 6);
  EXPECT_NO_THROW(check_writable("/dev/stdout", "--out"));
  EXPECT_TRUE(written_in_place("/dev/stdout"));
  EXPECT_NO_THROW(write_file_atomically("/dev/stdout", "report\n"));
  EXPECT_NO_THROW(write_file_atomically("/proc/self/fd/1", "again\n"));
  ::dup2(saved, 1);
  ::close(saved);
  EXPECT_EQ(file_text(file), "first\nreport\nagain\n");
}

// A 250-byte name is legal (at most 255 on Linux file systems); its temp name beside it,
// NAME.tmp.PID, was not, and the --out was refused. The temp name is shortened, the user's
// name kept; a killed writer's shortened temp file is still cleaned up.
TEST(AtomicFile, ANameNearTheLongestLegalOneIsWritten) {
  const std::string dir = temp_dir();
  for (const std::size_t length : {240u, 241u, 250u, 255u}) {
    const std::string out = dir + "/" + std::string(length - 5, 'r') + ".json";
    ASSERT_EQ(std::string(out.substr(dir.size() + 1)).size(), length);
    EXPECT_NO_THROW(check_writable(out, "--out")) << length;
    ASSERT_NO_THROW(write_file_atomically(out, "{}\n")) << length;
    EXPECT_EQ(file_text(out), "{}\n");
    ASSERT_NO_THROW(write_file_atomically(out, "[]\n")) << "replaced, " << length;
    EXPECT_EQ(file_text(out), "[]\n");
  }
  const std::string out = dir + "/" + std::string(250, 'k');
  const std::string stale = dir + "/" + std::string(240, 'k') + ".tmp." + std::to_string(ended_pid());
  std::ofstream(stale) << "partial";
  write_file_atomically(out, "{}\n");
  EXPECT_FALSE(exists(stale)) << "a dead writer's shortened temp file stays behind";
  // Past the limit the name itself is what is wrong, and the refusal says so up front.
  try {
    check_writable(dir + "/" + std::string(256, 'x'), "--out");
    ADD_FAILURE() << "a 256-byte name accepted";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("its name is 256 bytes, more than the 255"), std::string::npos) << error.what();
  }
}

// A path of PATH_MAX bytes or more, its folders existing and its name legal, is refused up
// front: the temp file's shorter name passed the probe and the final rename failed after the
// run had measured everything, exit 4 (issue 61, item 8).
TEST(AtomicFile, APathLongerThanPathMaxIsRefusedUpFront) {
  std::string dir = temp_dir();
  const std::string top = dir;
  const std::size_t name_length = 254;  // its temp name (240 + ".tmp." + PID) is shorter
  const std::size_t dir_length = PATH_MAX - 1 - name_length;  // the whole path: PATH_MAX bytes
  while (dir.size() < dir_length) {
    const std::size_t step = std::min<std::size_t>(200, dir_length - dir.size() - 1);
    if (step == 0) break;
    dir += "/" + std::string(step, 'd');
    ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0) << dir.size();
  }
  while (dir.size() < dir_length) dir += "/";  // a folder's trailing slashes keep it the same folder
  const std::string out = dir + "/" + std::string(name_length, 'o');
  ASSERT_EQ(out.size(), static_cast<std::size_t>(PATH_MAX));
  try {
    check_writable(out, "--out");
    ADD_FAILURE() << "a path of PATH_MAX bytes accepted";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("its path is 4096 bytes, more than the 4095 a path may have"), std::string::npos)
        << error.what();
  }
  std::system(("rm -rf '" + top + "'").c_str());
}

TEST(AtomicFile, AFolderWhereNoFileCanBeCreatedIsRefused) {
  EXPECT_NO_THROW(check_writable_folder(temp_dir() + "/new/nested", "--hta-dir"));
  // /proc lets root's access(W_OK) through; creating a file there fails for everyone.
  try {
    check_writable_folder("/proc", "--hta-dir");
    ADD_FAILURE() << "/proc accepted";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("cannot create a file in it"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace gpubench
