#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {

struct ChildOutcome {
  int exit_code = -1;       // valid when !signaled && !timed_out
  int signal = 0;           // the signal that ended it, if any
  bool timed_out = false;
  bool interrupted = false;  // stopped because gpubench got SIGINT/SIGTERM (io/interrupt.h)
  std::uint64_t peak_rss_bytes = 0;  // the child's own ru_maxrss: a clean per-config peak
  bool out_of_memory = false;  // killed by SIGKILL while the kernel counted an OOM kill (cgroup or system)
  double wall_s = 0;
  std::string describe() const;      // "exit code 3", "killed by signal 11 (Segmentation fault)", "out of memory: ..."
};

// Runs `argv` (argv[0] is the executable path) as a child process in a process group of
// its own that dies with this process, and waits up to `timeout_s`. On timeout, or when
// this process is interrupted (io/interrupt.h), the group gets SIGTERM, then SIGKILL after
// a 5 s grace.
ChildOutcome run_child_process(const std::vector<std::string>& argv, double timeout_s);

// The path of the running executable (/proc/self/exe), for re-exec.
std::string self_executable();

}  // namespace gpubench
