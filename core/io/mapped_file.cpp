#include "core/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "core/config/errors.h"

namespace gpubench {

MappedFile::MappedFile(const std::string& path, const std::string& what) : path_(path), what_(what) {
  const auto refusal = [&](const std::string& why) { return UsageError("cannot read " + what + " '" + path + "': " + why); };
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // O_NONBLOCK: a FIFO must not hang the open
  if (fd_ < 0) throw refusal(std::strerror(errno));
  struct stat info {};
  if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    const bool directory = S_ISDIR(info.st_mode);
    ::close(fd_);
    throw refusal(directory ? "it is a directory, expected a file"
                            : "not a regular file (a device, FIFO or socket), expected a file");
  }
  size_ = static_cast<std::size_t>(info.st_size);
  if (size_ == 0) return;
  map_ = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd_, 0);
  if (map_ == MAP_FAILED) {
    const int error = errno;
    ::close(fd_);
    throw refusal(std::string("cannot be memory-mapped: ") + std::strerror(error));
  }
}

MappedFile::~MappedFile() {
  if (map_ != nullptr && map_ != MAP_FAILED) ::munmap(map_, size_);
  if (fd_ >= 0) ::close(fd_);
}

void MappedFile::copy_out(std::uint64_t offset, std::size_t bytes, void* to) const {
  auto* into = static_cast<char*>(to);
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t got = ::pread(fd_, into + done, bytes - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw std::runtime_error(what_ + " '" + path_ + "' cannot be read: " + std::strerror(errno));
    if (got == 0) {
      struct stat info {};
      const long long now = ::fstat(fd_, &info) == 0 ? static_cast<long long>(info.st_size) : -1;
      throw std::runtime_error(what_ + " '" + path_ + "' shrank during the run (was " + std::to_string(size_) +
                               " bytes, now " + std::to_string(now) + ")");
    }
    done += static_cast<std::size_t>(got);
  }
}

}  // namespace gpubench
