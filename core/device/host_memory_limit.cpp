#include "core/device/host_memory_limit.h"

#include "core/device/host_sample.h"

#include <csignal>

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace gpubench {
namespace {

std::optional<std::uint64_t> parse_bytes(const std::string& text) {
  std::uint64_t value = 0;
  std::istringstream in(text);
  if (!(in >> value)) return std::nullopt;
  return value;
}

// The number after `key` on its own line of a "key value" file (meminfo, memory.events,
// memory.oom_control, vmstat); nullopt when no line has it.
std::optional<std::uint64_t> field(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind(key + " ", 0) == 0) return parse_bytes(line.substr(key.size() + 1));
  return std::nullopt;
}

bool is_file(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error);
}

}  // namespace

std::optional<MemoryCgroupFiles> memory_cgroup_files(const std::string& proc_self_cgroup, const std::string& root) {
  std::optional<MemoryCgroupFiles> v1;
  std::istringstream lines(proc_self_cgroup);
  // Each line is "id:controllers:path": v2's is "0::/path", a v1 hierarchy's names its
  // controllers ("4:memory:/path", "7:cpu,memory:/path").
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find(':'), second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1), path = line.substr(second + 1);
    if (line.rfind("0::", 0) == 0) {
      const std::string dir = root + path;
      if (is_file(dir + "/memory.max"))
        return MemoryCgroupFiles{dir, dir + "/memory.max", dir + "/memory.current", dir + "/memory.events", 2, root};
      continue;
    }
    std::istringstream names(controllers);
    for (std::string name; std::getline(names, name, ',');)
      if (name == "memory") {
        const std::string dir = root + "/memory" + path;
        if (is_file(dir + "/memory.limit_in_bytes"))
          v1 = MemoryCgroupFiles{dir, dir + "/memory.limit_in_bytes", dir + "/memory.usage_in_bytes", dir + "/memory.oom_control", 1,
                                 root + "/memory"};
      }
  }
  return v1;
}

std::optional<HostMemoryLimit> host_memory_limit_from(const std::string& meminfo, const std::string& cgroup_max,
                                                      const std::string& cgroup_current) {
  HostMemoryLimit limit;
  if (const auto kib = field(meminfo, "MemAvailable:")) limit.mem_available_bytes = *kib * 1024;
  const auto max = parse_bytes(cgroup_max), current = parse_bytes(cgroup_current);
  if (max && current) limit.cgroup_left_bytes = *max > *current ? *max - *current : 0;
  if (!limit.mem_available_bytes && !limit.cgroup_left_bytes) return std::nullopt;
  if (limit.cgroup_left_bytes && (!limit.mem_available_bytes || *limit.cgroup_left_bytes < *limit.mem_available_bytes)) {
    limit.available_bytes = *limit.cgroup_left_bytes;
    limit.source = "the cgroup's memory limit less its usage";
  } else {
    limit.available_bytes = *limit.mem_available_bytes;
    limit.source = "MemAvailable in /proc/meminfo";
  }
  return limit;
}

namespace {

// A process's cgroup does not change: found once (it is read for every config and rank).
const std::optional<MemoryCgroupFiles>& own_memory_cgroup() {
  static const std::optional<MemoryCgroupFiles> own = memory_cgroup_files(kernel_file_text("/proc/self/cgroup"));
  return own;
}

}  // namespace

OomKills oom_kills() {
  const auto& cgroup = own_memory_cgroup();
  return {cgroup ? field(kernel_file_text(cgroup->oom_events), "oom_kill").value_or(0) : 0,
          field(kernel_file_text("/proc/vmstat"), "oom_kill").value_or(0)};
}

bool killed_by_oom(int signal, bool sent_by_us, const OomKills& before) {
  return signal == SIGKILL && !sent_by_us && oom_kills().grew_since(before);
}

std::optional<HostMemoryLimit> host_memory_limit_in(const std::optional<MemoryCgroupFiles>& own, const std::string& meminfo) {
  std::optional<HostMemoryLimit> tightest = host_memory_limit_from(meminfo, "", "");
  if (!own) return tightest;
  namespace fs = std::filesystem;
  const fs::path top = fs::path(own->hierarchy).lexically_normal(), own_dir = fs::path(own->dir).lexically_normal();
  const std::string limit_name = fs::path(own->limit).filename().string(), usage_name = fs::path(own->usage).filename().string();
  for (fs::path dir = own_dir;; dir = dir.parent_path()) {
    // v2's root has no memory.max: nothing set there (MemAvailable stands for it).
    auto here = host_memory_limit_from(meminfo, kernel_file_text((dir / limit_name).string()), kernel_file_text((dir / usage_name).string()));
    if (here && dir != own_dir && here->cgroup_left_bytes && here->available_bytes == *here->cgroup_left_bytes)
      here->source = "the memory limit of the cgroup above it, '" + dir.string() + "', less its usage";
    if (here && (!tightest || here->available_bytes < tightest->available_bytes)) tightest = here;
    if (dir == top || dir == dir.parent_path() || dir.string().size() <= top.string().size()) break;
  }
  return tightest;
}

std::optional<HostMemoryLimit> host_memory_limit() {
  return host_memory_limit_in(own_memory_cgroup(), kernel_file_text("/proc/meminfo"));
}

}  // namespace gpubench
