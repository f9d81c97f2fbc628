#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
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

std::string temp_path_for(const std::string& path) { return path + ".tmp." + std::to_string(getpid()); }

// Creates the temp file beside a target. O_EXCL | O_NOFOLLOW: never through a file or link
// someone else put at the temp name; such a leftover (or a crashed run's) is removed, not
// followed, and the create retried. Returns the fd, or -1 with errno set.
int create_temp(const std::string& temp) {
  constexpr int kCreate = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::open(temp.c_str(), kCreate, 0644);
  if (fd < 0 && errno == EEXIST && ::unlink(temp.c_str()) == 0) fd = ::open(temp.c_str(), kCreate, 0644);
  return fd;
}

// What is at `path` decides how it is written.
enum class Target { Missing, Regular, Directory, Link, Stream };

Target target_of(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return Target::Missing;
  if (S_ISREG(info.st_mode)) return Target::Regular;
  if (S_ISDIR(info.st_mode)) return Target::Directory;
  if (S_ISLNK(info.st_mode)) {
    // A link to a device or FIFO (/dev/stdout -> /proc/self/fd/1) is written through like
    // one; a link to a file or nowhere is not followed.
    struct stat target {};
    const bool stream = ::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode) && !S_ISDIR(target.st_mode);
    return stream ? Target::Stream : Target::Link;
  }
  return Target::Stream;  // character or block device, FIFO, socket
}

// Writes all of `text` to `fd`; returns errno of the first failure, 0 when all went out.
int write_all(int fd, const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    written += static_cast<std::size_t>(n);
  }
  return 0;
}

// A device or FIFO (/dev/null, /dev/stdout, a named pipe): written through, in place.
// Opened non-blocking first: a named pipe nobody reads fails (ENXIO) instead of hanging.
void write_through(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENXIO) throw std::runtime_error("cannot write '" + path + "': a named pipe with no reader");
  if (fd < 0) throw std::runtime_error("cannot write '" + path + "': " + std::strerror(errno));
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // then write as usual
  const int error = write_all(fd, text);
  ::close(fd);
  if (error != 0) throw std::runtime_error("cannot write '" + path + "': " + std::strerror(error));
}

}  // namespace

bool written_in_place(const std::string& path) { return target_of(path) == Target::Stream; }

void write_file_atomically(const std::string& path, const std::string& text) {
  switch (target_of(path)) {
    case Target::Link: throw std::runtime_error("'" + path + "' is a symbolic link: not replaced, not followed");
    case Target::Directory: throw std::runtime_error("'" + path + "' is a directory");
    case Target::Stream: return write_through(path, text);
    case Target::Missing:
    case Target::Regular: break;
  }
  const std::string temp = temp_path_for(path);
  const int fd = create_temp(temp);
  if (fd < 0) throw std::runtime_error("cannot write '" + temp + "': " + std::strerror(errno));
  const int error = write_all(fd, text);
  if (error == 0) ::fsync(fd);
  ::close(fd);
  if (error != 0) {
    ::unlink(temp.c_str());
    throw std::runtime_error("cannot write '" + temp + "': " + std::strerror(error));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string rename_error = std::strerror(errno);
    ::unlink(temp.c_str());
    throw std::runtime_error("cannot rename '" + temp + "' to '" + path + "': " + rename_error);
  }
}

void check_writable(const std::string& path, const std::string& flag_name) {
  if (path.empty()) throw UsageError(flag_name + " is empty: expected a file path");
  const auto refusal = [&](const std::string& why) {
    return UsageError(flag_name + " '" + path + "' cannot be written: " + why);
  };
  switch (target_of(path)) {
    case Target::Link:
      throw refusal("it is a symbolic link to a file or to nothing (outputs are replaced atomically, never through a "
             "link): give the file it points to");
    case Target::Directory: throw refusal("it is a directory: expected a file path");
    case Target::Stream:
      // A device or FIFO is written through in place (write_file_atomically).
      if (::access(path.c_str(), W_OK) != 0) throw refusal(std::strerror(errno));
      return;
    case Target::Missing:
    case Target::Regular: break;
  }
  const std::string dir = directory_of(path);
  struct stat dir_info {};
  if (::stat(dir.c_str(), &dir_info) != 0) throw refusal("directory '" + dir + "': " + std::strerror(errno));
  if (!S_ISDIR(dir_info.st_mode)) throw refusal("'" + dir + "' is not a directory");
  // The real test, as the write will do it: create the temp file beside the target (this
  // catches read-only and pseudo file systems such as /proc, names too long, permissions).
  const std::string temp = temp_path_for(path);
  const int fd = create_temp(temp);
  if (fd < 0) throw refusal("cannot create '" + temp + "' beside it: " + std::strerror(errno));
  ::close(fd);
  ::unlink(temp.c_str());
  if (::access(path.c_str(), F_OK) == 0 && ::access(path.c_str(), W_OK) != 0) throw refusal(std::strerror(errno));
}

std::string read_file(const std::string& path, const std::string& what) {
  // Regular files only: a FIFO would block forever, /dev/zero never ends, and a directory
  // gives the stream library's unnamed error.
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) throw UsageError("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    throw UsageError("cannot read " + what + " '" + path + "': " +
                     (S_ISDIR(info.st_mode) ? "it is a directory" : "not a regular file (a device, FIFO or socket)") +
                     ", expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace gpubench
