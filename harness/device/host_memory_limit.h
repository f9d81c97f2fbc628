#pragma once
// How much host memory a new process may still use here: the kernel's MemAvailable, and
// under a cgroup v2 memory limit (a container, a CI job, a systemd slice) what the limit
// leaves. `tune`'s default CPU budget, and the up-front memory estimates, read it.
#include <cstdint>
#include <optional>
#include <string>

namespace gpubench {

struct HostMemoryLimit {
  std::uint64_t available_bytes = 0;  // the smaller of the two below, where known
  std::optional<std::uint64_t> mem_available_bytes;  // /proc/meminfo MemAvailable
  std::optional<std::uint64_t> cgroup_left_bytes;     // memory.max - memory.current of this process's cgroup
  std::string source;                                 // which of the two decided, for messages
};

// nullopt when neither can be read (not Linux, /proc not mounted).
std::optional<HostMemoryLimit> host_memory_limit();

// The same from given file contents (tests): /proc/meminfo's text, the cgroup's memory.max
// ("max" or bytes) and memory.current ("" when not under a limit).
std::optional<HostMemoryLimit> host_memory_limit_from(const std::string& meminfo, const std::string& cgroup_max,
                                                      const std::string& cgroup_current);

}  // namespace gpubench
