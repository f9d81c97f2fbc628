#include "core/io/output_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "core/config/errors.h"
#include "core/io/atomic_file.h"

namespace gpubench {
namespace {

constexpr std::size_t kMaxLockNameBytes = 255;  // NAME_MAX on Linux file systems
constexpr const char* kLockSuffix = ".lock";

// The pid the holder wrote into the lock file, or "" if none yet: it writes it right after
// taking the lock, so a few short retries cover the moment between the two.
std::string holder_pid(int fd) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    char text[32] = {};
    const ssize_t n = ::pread(fd, text, sizeof(text) - 1, 0);
    std::string pid(text, n > 0 ? static_cast<std::size_t>(n) : 0);
    pid = pid.substr(0, pid.find('\n'));
    if (!pid.empty() && pid.find_first_not_of("0123456789") == std::string::npos) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return "";
}

// The lock file that `fd` has open is still the one at `lock_path`: a releasing holder
// removes the file, and a second run may have opened it just before; that run retries on a
// new file rather than lock a name nobody else sees.
bool still_at_path(int fd, const std::string& lock_path) {
  struct stat opened {}, named {};
  return ::fstat(fd, &opened) == 0 && ::lstat(lock_path.c_str(), &named) == 0 && opened.st_dev == named.st_dev &&
         opened.st_ino == named.st_ino;
}

}  // namespace

std::string output_lock_path(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t name_at = slash == std::string::npos ? 0 : slash + 1;
  const std::string name = path.substr(name_at);
  const std::size_t suffix = std::strlen(kLockSuffix);
  return path.substr(0, name_at) + name.substr(0, std::min(name.size(), kMaxLockNameBytes - suffix)) + kLockSuffix;
}

OutputLock::OutputLock(const std::string& path, const std::string& flag_name) {
  if (written_in_place(path)) return;
  lock_path_ = output_lock_path(path);
  const auto refusal = [&](const std::string& why) {
    return UsageError(flag_name + " '" + path + "': " + why);
  };
  while (true) {
    // O_NOFOLLOW: a link planted at the lock name is refused, not followed.
    const int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) throw refusal("cannot open its lock file '" + lock_path_ + "': " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      const std::string pid = error == EWOULDBLOCK ? holder_pid(fd) : "";
      ::close(fd);
      if (error != EWOULDBLOCK) throw refusal("cannot lock '" + lock_path_ + "': " + std::strerror(error));
      throw refusal("another gpubench (pid " + (pid.empty() ? std::string("unknown") : pid) + ") is writing '" + path +
                    "' (it holds '" + lock_path_ + "'): two runs would replace each other's rows; expected another " +
                    flag_name + ", or this run after that one ends");
    }
    if (!still_at_path(fd, lock_path_)) {
      ::close(fd);
      continue;
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
      const std::string why = std::strerror(errno);
      ::unlink(lock_path_.c_str());
      ::close(fd);
      throw refusal("cannot write its lock file '" + lock_path_ + "': " + why);
    }
    fd_ = fd;
    return;
  }
}

OutputLock::OutputLock(OutputLock&& other) noexcept : lock_path_(std::move(other.lock_path_)), fd_(other.fd_) {
  other.fd_ = -1;
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  // Removed while still held: whoever opened it meanwhile finds it gone and starts afresh.
  ::unlink(lock_path_.c_str());
  ::close(fd_);
}

}  // namespace gpubench
