#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace gpubench {

// A regular file mapped read-only: its bytes are the page cache's, not a copy on the heap
// (a 2.35 GB IDX file read into a string, copied, then converted drove the process to
// 24 GB). Throws UsageError "cannot read WHAT 'PATH': why" for a missing file, a
// directory, a FIFO or device (never waited on), or a failed mapping.
class MappedFile {
 public:
  MappedFile(const std::string& path, const std::string& what);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::uint8_t* data() const { return static_cast<const std::uint8_t*>(map_); }
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }

  // Copies bytes [offset, offset + bytes) into `to` through pread(2), not the mapping: a
  // file cut under its mapping (truncated by a download that starts again, a user's `>`)
  // makes a read of the mapping past its new end SIGBUS, where pread comes back short.
  // Throws std::runtime_error "WHAT 'PATH' shrank during the run (was N bytes, now M)".
  void copy_out(std::uint64_t offset, std::size_t bytes, void* to) const;

 private:
  std::string path_, what_;
  int fd_ = -1;
  std::size_t size_ = 0;
  void* map_ = nullptr;
};

}  // namespace gpubench
