#pragma once
#include <chrono>
#include <string>
#include <vector>

#include <sys/types.h>

namespace gpubench::bench {

// This executable started again as a child with `arguments` (after argv[0]): the other
// ranks of a collective benchmark. Google Benchmark runs in one process, and fork
// without exec is unsafe once LibTorch's thread pools exist, so the peer is a fresh
// process. It is killed when the thread that started it dies (PR_SET_PDEATHSIG), so a
// crashed or interrupted benchmark never leaves a peer behind holding a port.
class PeerProcess {
 public:
  explicit PeerProcess(const std::vector<std::string>& arguments);  // throws std::runtime_error
  ~PeerProcess();                                                    // kills it if still running
  PeerProcess(const PeerProcess&) = delete;
  PeerProcess& operator=(const PeerProcess&) = delete;

  // Waits up to `grace` for the peer to exit by itself, then kills it (SIGKILL) and reaps
  // it. Returns how it ended ("exit 0", "killed after 5000 ms", ...). Idempotent.
  std::string stop(std::chrono::milliseconds grace);
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  std::string ended_;
};

}  // namespace gpubench::bench
