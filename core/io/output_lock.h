#pragma once
// One writer per output file. Two gpubench runs naming the same --out (or --trace) each
// replace the file after every config: the last rename wins, and a run could say "report
// written" of a file that holds only the other run's rows. So a run holds an exclusive
// lock (flock) on a file beside each output, `<out>.lock`, from the output check before
// anything is measured until its last write; a second run naming the file is refused at
// once, naming the holder's pid. The kernel drops the lock when its holder dies however it
// dies (kill -9 included): a lock file left behind holds nobody.
#include <string>

namespace gpubench {

class OutputLock {
 public:
  // Locks `path` (named `flag_name` in messages). A device, FIFO or this process's own
  // stream (/dev/null, /dev/stdout), written through rather than replaced, needs no lock:
  // the object holds none. Throws UsageError when another process holds it ("another
  // gpubench (pid N) is writing 'PATH'"), or when the lock file cannot be made.
  OutputLock(const std::string& path, const std::string& flag_name);
  ~OutputLock();  // removes the lock file, then lets go
  OutputLock(OutputLock&& other) noexcept;
  OutputLock& operator=(OutputLock&&) = delete;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  bool held() const { return fd_ >= 0; }
  const std::string& lock_path() const { return lock_path_; }

 private:
  std::string lock_path_;
  int fd_ = -1;
};

// The lock file of `path`: `path.lock`, its name cut to fit 255 bytes (a legal 253-byte
// name keeps its lock beside it).
std::string output_lock_path(const std::string& path);

}  // namespace gpubench
