#pragma once
// How much host memory a new process may still use here: the kernel's MemAvailable, and
// under a cgroup memory limit (a container, a CI job, a systemd slice; cgroup v2, or v1's
// memory controller, which Debian 12 VMs and older Docker hosts still mount) what the
// limit leaves. `tune`'s default CPU budget, and the up-front memory estimates, read it.
#include <cstdint>
#include <optional>
#include <string>

namespace gpubench {

struct HostMemoryLimit {
  std::uint64_t available_bytes = 0;  // the smaller of the two below, where known
  std::optional<std::uint64_t> mem_available_bytes;  // /proc/meminfo MemAvailable
  std::optional<std::uint64_t> cgroup_left_bytes;     // the cgroup's limit less its usage
  std::string source;                                 // which of the two decided, for messages
};

// nullopt when neither can be read (not Linux, /proc not mounted).
std::optional<HostMemoryLimit> host_memory_limit();

// This process's memory cgroup, as paths of the files that say its limit, its usage and
// its OOM kills: v2's memory.max, memory.current and memory.events, or v1's
// memory.limit_in_bytes, memory.usage_in_bytes and memory.oom_control (both count
// "oom_kill N"). From /proc/self/cgroup's text and the cgroup mount (`root`); v2 is taken
// where its folder has a memory controller, else v1's memory line; nullopt for neither.
struct MemoryCgroupFiles {
  std::string dir, limit, usage, oom_events;
  int version = 2;
  std::string hierarchy;  // the hierarchy's mount (root, or v1's root/memory): the top of dir's ancestors
};
std::optional<MemoryCgroupFiles> memory_cgroup_files(const std::string& proc_self_cgroup,
                                                     const std::string& root = "/sys/fs/cgroup");

// The OOM kills so far, as the kernel counts them: this process's cgroup's (oom_kill of
// memory.events, or of v1's memory.oom_control) and the whole system's (/proc/vmstat's
// oom_kill); 0 where unreadable. A child killed by SIGKILL while either grew ran out of memory.
struct OomKills {
  std::uint64_t cgroup = 0, system = 0;
  bool grew_since(const OomKills& before) const { return cgroup > before.cgroup || system > before.system; }
};
OomKills oom_kills();
// Whether a child that ended by `signal` was taken by the OOM killer: a SIGKILL that this
// process did not send (`sent_by_us`) while the kernel's count grew since `before`.
bool killed_by_oom(int signal, bool sent_by_us, const OomKills& before);
// How a config's child or rank that the OOM killer took is described in its row.
inline constexpr const char* kKilledOutOfMemory =
    "out of memory: killed by the kernel's OOM killer (SIGKILL while the OOM kills counted by its memory cgroup or "
    "/proc/vmstat grew)";
inline constexpr const char* kOutOfMemoryHint = "; a smaller --batch-size may fit";

// host_memory_limit() for a given cgroup (nullopt: none) and /proc/meminfo text (tests):
// the tightest of MemAvailable and what the cgroup and each cgroup above it up to its
// hierarchy's mount leave (a limit on a parent slice binds every cgroup under it, while
// the process's own cgroup may say "max").
std::optional<HostMemoryLimit> host_memory_limit_in(const std::optional<MemoryCgroupFiles>& own, const std::string& meminfo);

// The same from given file contents (tests): /proc/meminfo's text, the cgroup's limit
// (v2's "max" or bytes; v1's bytes, a huge number when unlimited) and its usage ("" when
// not under a limit).
std::optional<HostMemoryLimit> host_memory_limit_from(const std::string& meminfo, const std::string& cgroup_max,
                                                      const std::string& cgroup_current);

}  // namespace gpubench
