#include "core/io/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <stdexcept>

#include "core/config/errors.h"

namespace gpubench {
namespace {

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The file name of `path` (after its last '/').
std::string name_of(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

// What a temp file's name starts with: the target's own name, cut where the ".tmp.PID"
// after it would pass the 255 bytes a name may have (NAME_MAX on Linux file systems): a
// legal 250-byte --out keeps its name, only its temp name is shorter.
constexpr std::size_t kMaxNameBytes = 255;
constexpr std::size_t kTempSuffixBytes = 15;  // ".tmp." and a PID of up to 10 digits
std::string temp_prefix_for(const std::string& path) {
  const std::string name = name_of(path);
  return name.substr(0, std::min(name.size(), kMaxNameBytes - kTempSuffixBytes)) + ".tmp.";
}

std::string temp_path_for(const std::string& path) {
  return path.substr(0, path.size() - name_of(path).size()) + temp_prefix_for(path) + std::to_string(getpid());
}

// Creates the temp file beside a target. O_EXCL | O_NOFOLLOW: never through a file or link
// someone else put at the temp name; such a leftover (or a crashed run's) is removed, not
// followed, and the create retried. Returns the fd, or -1 with errno set.
int create_temp(const std::string& temp) {
  constexpr int kCreate = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::open(temp.c_str(), kCreate, 0644);
  if (fd < 0 && errno == EEXIST && ::unlink(temp.c_str()) == 0) fd = ::open(temp.c_str(), kCreate, 0644);
  return fd;
}

// The descriptor this process already has open that `path` names (/dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N), or -1. Such a path is this process's own
// stream, whatever is behind it (`> report.txt` makes it a link to a regular file): it is
// written through that descriptor, at its offset, as a shell user means it.
int own_descriptor(const std::string& path) {
  int fd = path == "/dev/stdin" ? 0 : path == "/dev/stdout" ? 1 : path == "/dev/stderr" ? 2 : -1;
  for (const std::string& prefix :
       std::initializer_list<std::string>{"/dev/fd/", "/proc/self/fd/", "/proc/" + std::to_string(::getpid()) + "/fd/"}) {
    if (fd >= 0 || path.rfind(prefix, 0) != 0) continue;
    const std::string number = path.substr(prefix.size());
    if (number.empty() || number.size() > 6 || number.find_first_not_of("0123456789") != std::string::npos) return -1;
    fd = std::stoi(number);
  }
  // Only a descriptor that is open: a closed one's name is a dangling link, refused as one.
  return fd >= 0 && ::fcntl(fd, F_GETFD) != -1 ? fd : -1;
}

// What is at `path` decides how it is written.
enum class Target { Missing, Regular, Directory, Link, Stream, OwnDescriptor };

Target target_of(const std::string& path) {
  if (own_descriptor(path) >= 0) return Target::OwnDescriptor;
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
// Opened non-blocking, never as a controlling terminal; -1 with errno set.
int open_stream(const std::string& path) { return ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC); }

// Why a stream could not be opened: ENXIO means no reader on a FIFO, but no device (no
// controlling terminal behind /dev/tty) on a character device.
std::string open_failure(const std::string& path, int error) {
  struct stat info {};
  if (error == ENXIO && ::stat(path.c_str(), &info) == 0 && S_ISFIFO(info.st_mode)) return "a named pipe with no reader";
  if (error == ENXIO && path == "/dev/tty") return std::string(std::strerror(error)) + " (this process has no terminal)";
  return std::strerror(error);
}

void write_through(const std::string& path, const std::string& text) {
  if (const int own = own_descriptor(path); own >= 0) {
    if (const int error = write_all(own, text); error != 0)
      throw std::runtime_error("cannot write '" + path + "': " + std::strerror(error));
    return;
  }
  const int fd = open_stream(path);
  if (fd < 0) throw std::runtime_error("cannot write '" + path + "': " + open_failure(path, errno));
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // then write as usual
  const int error = write_all(fd, text);
  ::close(fd);
  if (error != 0) throw std::runtime_error("cannot write '" + path + "': " + std::strerror(error));
}

// Removes the temp files that earlier writers of `path` left when they were killed
// mid-write (`kill -9`, OOM): `path`.tmp.PID, a regular file of this user, whose PID no
// longer runs. A live writer's temp file, or anyone else's, is left alone.
void remove_stale_temps(const std::string& path) {
  const std::string dir = directory_of(path);
  const std::string prefix = temp_prefix_for(path);
  DIR* listing = ::opendir(dir.c_str());
  if (listing == nullptr) return;
  while (const dirent* entry = ::readdir(listing)) {
    const std::string name = entry->d_name;
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string pid_text = name.substr(prefix.size());
    if (pid_text.empty() || pid_text.size() > 9 || pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(pid_text));
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    const std::string stale = dir + "/" + name;
    struct stat info {};
    if (::lstat(stale.c_str(), &info) == 0 && S_ISREG(info.st_mode) && info.st_uid == ::geteuid()) ::unlink(stale.c_str());
  }
  ::closedir(listing);
}

}  // namespace

bool written_in_place(const std::string& path) {
  const Target target = target_of(path);
  return target == Target::Stream || target == Target::OwnDescriptor;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  switch (target_of(path)) {
    case Target::Link: throw std::runtime_error("'" + path + "' is a symbolic link: not replaced, not followed");
    case Target::Directory: throw std::runtime_error("'" + path + "' is a directory");
    case Target::Stream:
    case Target::OwnDescriptor: return write_through(path, text);
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
  remove_stale_temps(path);
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
    case Target::OwnDescriptor:
      if ((::fcntl(own_descriptor(path), F_GETFL) & O_ACCMODE) == O_RDONLY) throw refusal("it is open for reading only");
      return;
    case Target::Stream: {
      // A device or FIFO is written through in place (write_file_atomically). A device is
      // opened now, as it will be (a FIFO's reader may come later).
      if (::access(path.c_str(), W_OK) != 0) throw refusal(std::strerror(errno));
      struct stat info {};
      if (::stat(path.c_str(), &info) == 0 && !S_ISFIFO(info.st_mode)) {
        const int fd = open_stream(path);
        if (fd < 0) throw refusal(open_failure(path, errno));
        ::close(fd);
      }
      return;
    }
    case Target::Missing:
    case Target::Regular: break;
  }
  // The final rename takes the whole path, which must be shorter than PATH_MAX; the temp
  // file's shorter name could pass the probe below and the rename fail after the run.
  if (path.size() >= PATH_MAX)
    throw refusal("its path is " + std::to_string(path.size()) + " bytes, more than the " + std::to_string(PATH_MAX - 1) +
                  " a path may have (PATH_MAX)");
  const std::string dir = directory_of(path);
  struct stat dir_info {};
  if (::stat(dir.c_str(), &dir_info) != 0) throw refusal("directory '" + dir + "': " + std::strerror(errno));
  if (!S_ISDIR(dir_info.st_mode)) throw refusal("'" + dir + "' is not a directory");
  // The temp name is cut to fit (temp_prefix_for); the name itself must fit as it is.
  const long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  if (name_max > 0 && name_of(path).size() > static_cast<std::size_t>(name_max))
    throw refusal("its name is " + std::to_string(name_of(path).size()) + " bytes, more than the " +
                  std::to_string(name_max) + " a file name may have there");
  // The real test, as the write will do it: create the temp file beside the target (this
  // catches read-only and pseudo file systems such as /proc, names too long, permissions).
  const std::string temp = temp_path_for(path);
  const int fd = create_temp(temp);
  if (fd < 0) throw refusal("cannot create '" + temp + "' beside it: " + std::strerror(errno));
  ::close(fd);
  ::unlink(temp.c_str());
  if (::access(path.c_str(), F_OK) == 0 && ::access(path.c_str(), W_OK) != 0) throw refusal(std::strerror(errno));
}

void check_writable_folder(const std::string& path, const std::string& flag_name) {
  const auto refusal = [&](const std::string& why) {
    return UsageError(flag_name + " '" + path + "' is not a folder this user can create or write (" + why +
                      "): expected a writable folder");
  };
  if (path.empty()) throw UsageError(flag_name + " is empty: expected a folder");
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) throw refusal(error.message());
  if (!std::filesystem::is_directory(path)) throw refusal("not a directory");
  std::string probe = path + "/.gpubench-probe-XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) throw refusal(std::string("cannot create a file in it: ") + std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
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
