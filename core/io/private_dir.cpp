#include "core/io/private_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "core/config/errors.h"

namespace gpubench {

PrivateDir::PrivateDir() : PrivateDir(std::string()) {}

PrivateDir::PrivateDir(const std::string& parent) {
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string base = !parent.empty() ? parent : tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  std::string pattern = base + "/gpubench-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (mkdtemp(name.data()) == nullptr)  // mode 0700: only this user enters
    throw UsageError("cannot create a private directory " + pattern + ": " + std::strerror(errno) +
                     " (expected TMPDIR, or /tmp, to be a writable directory)");
  path_ = name.data();
}

PrivateDir::~PrivateDir() {
  std::error_code ignored;  // a destructor must not throw; a leftover is harmless, only ours to read
  std::filesystem::remove_all(path_, ignored);
}

bool is_in_private_dir(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos || slash + 1 == path.size()) return false;
  const std::string dir = path.substr(0, slash);
  const std::string name = dir.substr(dir.find_last_of('/') + 1);
  if (name.size() != std::string("gpubench-XXXXXX").size() || name.rfind("gpubench-", 0) != 0) return false;
  struct stat info {};
  return ::lstat(dir.c_str(), &info) == 0 && S_ISDIR(info.st_mode) && info.st_uid == ::geteuid() &&
         (info.st_mode & 0777) == 0700;
}

}  // namespace gpubench
