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

// The OOM kills so far, as the kernel counts them: this process's cgroup's (memory.events'
// oom_kill) and the whole system's (/proc/vmstat's oom_kill); 0 where unreadable. A child
// killed by SIGKILL while either grew ran out of memory.
struct OomKills {
  std::uint64_t cgroup = 0, system = 0;
  bool grew_since(const OomKills& before) const { return cgroup > before.cgroup || system > before.system; }
};
OomKills oom_kills();

// The same from given file contents (tests): /proc/meminfo's text, the cgroup's memory.max
// ("max" or bytes) and memory.current ("" when not under a limit).
std::optional<HostMemoryLimit> host_memory_limit_from(const std::string& meminfo, const std::string& cgroup_max,
                                                      const std::string& cgroup_current);

}  // namespace gpubench
