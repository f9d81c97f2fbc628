#pragma once
// A child memory cgroup of this process's own, for tests that run gpubench (or its bench)
// where the kernel's OOM killer and a limit under MemAvailable are real: cgroup v2's or v1's
// memory hierarchy, root (this project's VMs) or a delegated one; ready() false elsewhere,
// why_not() saying why.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "core/device/host_memory_limit.h"
#include "support/run_command.h"

namespace gpubench::test_support {

inline bool write_cgroup_file(const std::string& path, const std::string& text) {
  std::ofstream file(path);
  file << text;
  file.flush();
  return static_cast<bool>(file);
}

// A child memory cgroup of this process's own, with `limit_bytes` and no swap beyond it;
// removed at the end of the test. `nested`: the processes run in a cgroup below it that
// sets no limit of its own (a job inside a limited slice).
class TestMemoryCgroup {
 public:
  explicit TestMemoryCgroup(std::uint64_t limit_bytes, bool nested = false) {
    std::ifstream self("/proc/self/cgroup");
    std::stringstream text;
    text << self.rdbuf();
    const auto own = memory_cgroup_files(text.str());
    if (!own) {
      why_not_ = "no memory cgroup hierarchy found in /proc/self/cgroup";
      return;
    }
    dir_ = own->dir + "/gpubench-test-" + std::to_string(getpid());
    if (mkdir(dir_.c_str(), 0755) != 0) {
      why_not_ = "cannot create " + dir_ + " (not root, or a read-only hierarchy)";
      dir_.clear();
      return;
    }
    const std::string limit = std::to_string(limit_bytes);
    const bool limited = own->version == 1 ? write_cgroup_file(dir_ + "/memory.limit_in_bytes", limit)
                                           : write_cgroup_file(dir_ + "/memory.max", limit);
    if (!limited) {
      why_not_ = "cannot set a memory limit in " + dir_;
      return;
    }
    // Swap would turn the OOM kill into a crawl: none beyond the limit, where settable.
    if (own->version == 1) write_cgroup_file(dir_ + "/memory.memsw.limit_in_bytes", limit);
    else write_cgroup_file(dir_ + "/memory.swap.max", "0");
    if (nested) {
      // v2 lets processes into the inner folder only when the outer one hands it the memory controller.
      if (own->version == 2) write_cgroup_file(dir_ + "/cgroup.subtree_control", "+memory");
      inner_ = dir_ + "/job";
      if (mkdir(inner_.c_str(), 0755) != 0) {
        why_not_ = "cannot create " + inner_;
        inner_.clear();
        return;
      }
    }
    // cgroup v2 refuses processes in a folder whose parent delegates no controllers to it.
    if (run_command(inside("true")).exit_code != 0) {
      why_not_ = "cannot move a process into " + dir_;
      return;
    }
    ready_ = true;
  }
  ~TestMemoryCgroup() {
    // Its processes have exited; the kernel may take a moment to let the folders go.
    for (const std::string& dir : {inner_, dir_})
      for (int attempt = 0; !dir.empty() && attempt < 50 && rmdir(dir.c_str()) != 0; ++attempt)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  bool ready() const { return ready_; }
  const std::string& why_not() const { return why_not_; }
  // The command line, run by a shell that first moves itself into the cgroup.
  std::string inside(const std::string& command) const {
    return "sh -c 'echo $$ > " + (inner_.empty() ? dir_ : inner_) + "/cgroup.procs && exec " + command + "'";
  }

 private:
  std::string dir_, inner_, why_not_;
  bool ready_ = false;
};

// The limit the tests use: under what LibTorch and a small model need, far under a large one.
constexpr std::uint64_t kTestCgroupLimit = 1536ULL << 20;

}  // namespace gpubench::test_support
