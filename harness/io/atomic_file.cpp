#include "io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "config/errors.h"

namespace gpubench {
namespace {

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp." + std::to_string(getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write '" + temp + "': " + std::strerror(errno));
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string error = std::strerror(errno);
      ::close(fd);
      ::unlink(temp.c_str());
      throw std::runtime_error("cannot write '" + temp + "': " + error);
    }
    written += static_cast<std::size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string error = std::strerror(errno);
    ::unlink(temp.c_str());
    throw std::runtime_error("cannot rename '" + temp + "' to '" + path + "': " + error);
  }
}

void check_writable(const std::string& path, const std::string& flag_name) {
  if (path.empty()) throw UsageError(flag_name + " is empty: expected a file path");
  const std::string dir = directory_of(path);
  if (::access(dir.c_str(), W_OK) != 0)
    throw UsageError(flag_name + " '" + path + "' is not writable: directory '" + dir + "': " + std::strerror(errno));
  if (::access(path.c_str(), F_OK) == 0 && ::access(path.c_str(), W_OK) != 0)
    throw UsageError(flag_name + " '" + path + "' is not writable: " + std::strerror(errno));
}

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace gpubench
