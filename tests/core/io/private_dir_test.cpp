#include "core/io/private_dir.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace gpubench {
namespace {

namespace fs = std::filesystem;

// Sets TMPDIR for one test, restores it after.
class ScopedTmpdir {
 public:
  explicit ScopedTmpdir(const std::string& value) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    ::setenv("TMPDIR", value.c_str(), 1);
  }
  ~ScopedTmpdir() {
    if (old_.empty())
      ::unsetenv("TMPDIR");
    else
      ::setenv("TMPDIR", old_.c_str(), 1);
  }

 private:
  std::string old_;
};

TEST(PrivateDir, IsOnlyThisUsersAndFreshEachTime) {
  const PrivateDir a, b;
  EXPECT_NE(a.path(), b.path());
  struct stat info {};
  ASSERT_EQ(::lstat(a.path().c_str(), &info), 0);
  EXPECT_TRUE(S_ISDIR(info.st_mode));  // a directory, not a symlink someone planted
  EXPECT_EQ(info.st_mode & 07777, 0700u);
  EXPECT_EQ(info.st_uid, ::geteuid());
  EXPECT_EQ(a.file("x.json"), a.path() + "/x.json");
}

TEST(PrivateDir, LivesUnderTmpdirAndGoesWithEverythingInIt) {
  const fs::path base = fs::temp_directory_path() / ("gpubench-private-dir-test-" + std::to_string(::getpid()));
  fs::create_directories(base);
  {
    ScopedTmpdir tmpdir(base.string());
    std::string path;
    {
      const PrivateDir dir;
      path = dir.path();
      EXPECT_EQ(fs::path(path).parent_path(), base);
      std::ofstream(dir.file("result.json")) << "{}";
      fs::create_directories(dir.file("nested"));
    }
    EXPECT_FALSE(fs::exists(path));
  }
  EXPECT_TRUE(fs::is_empty(base));
  fs::remove_all(base);
}

// A child's scratch directory goes inside the parent's private one, so removing that
// removes whatever a killed child left.
TEST(PrivateDir, CanLiveInsideAnother) {
  const PrivateDir outer;
  std::string inner_path;
  {
    const PrivateDir inner(outer.path());
    inner_path = inner.path();
    EXPECT_EQ(fs::path(inner_path).parent_path(), fs::path(outer.path()));
  }
  EXPECT_FALSE(fs::exists(inner_path));
}

TEST(PrivateDir, SaysWhereItCouldNotBeMade) {
  ScopedTmpdir tmpdir("/nonexistent-gpubench-dir");
  try {
    const PrivateDir dir;
    FAIL() << "made " << dir.path();
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent-gpubench-dir/gpubench-XXXXXX"), std::string::npos) << error.what();
  }
}

// The internal --child-result / --child-trace flags write only into such a folder.
TEST(PrivateDir, KnowsItsOwnFiles) {
  const PrivateDir dir;
  EXPECT_TRUE(is_in_private_dir(dir.file("config0.json")));
  EXPECT_FALSE(is_in_private_dir(dir.path())) << "the folder itself is not a file in it";
  EXPECT_FALSE(is_in_private_dir("/etc/passwd"));
  EXPECT_FALSE(is_in_private_dir("report.json"));
  const std::string lookalike = dir.path() + "/gpubench-ABCDEF";
  fs::create_directory(lookalike);  // mode 0755 (umask 022), not 0700
  ::chmod(lookalike.c_str(), 0755);
  EXPECT_FALSE(is_in_private_dir(lookalike + "/r.json")) << "a folder others can enter";
  const std::string link = dir.path() + "/gpubench-LINKED";
  fs::create_directory_symlink(dir.path(), link);
  EXPECT_FALSE(is_in_private_dir(link + "/r.json")) << "a link to a private folder";
}

}  // namespace
}  // namespace gpubench
