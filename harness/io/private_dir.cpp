#include "io/private_dir.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "config/errors.h"

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

}  // namespace gpubench
