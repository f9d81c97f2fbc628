#include "device/host_memory_limit.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace gpubench {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::optional<std::uint64_t> parse_bytes(const std::string& text) {
  std::uint64_t value = 0;
  std::istringstream in(text);
  if (!(in >> value)) return std::nullopt;
  return value;
}

// The cgroup v2 folder of this process ("0::/path" in /proc/self/cgroup).
std::string own_cgroup_dir() {
  std::istringstream lines(read_text("/proc/self/cgroup"));
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind("0::", 0) == 0) return "/sys/fs/cgroup" + line.substr(3);
  return "";
}

}  // namespace

std::optional<HostMemoryLimit> host_memory_limit_from(const std::string& meminfo, const std::string& cgroup_max,
                                                      const std::string& cgroup_current) {
  HostMemoryLimit limit;
  std::istringstream lines(meminfo);
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind("MemAvailable:", 0) == 0)
      if (const auto kib = parse_bytes(line.substr(13))) limit.mem_available_bytes = *kib * 1024;
  const auto max = parse_bytes(cgroup_max), current = parse_bytes(cgroup_current);
  if (max && current) limit.cgroup_left_bytes = *max > *current ? *max - *current : 0;
  if (!limit.mem_available_bytes && !limit.cgroup_left_bytes) return std::nullopt;
  if (limit.cgroup_left_bytes && (!limit.mem_available_bytes || *limit.cgroup_left_bytes < *limit.mem_available_bytes)) {
    limit.available_bytes = *limit.cgroup_left_bytes;
    limit.source = "the cgroup's memory.max less memory.current";
  } else {
    limit.available_bytes = *limit.mem_available_bytes;
    limit.source = "MemAvailable in /proc/meminfo";
  }
  return limit;
}

// The number after `key` on its own line of a "key value" file (memory.events, vmstat).
std::uint64_t counter(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind(key + " ", 0) == 0) return parse_bytes(line.substr(key.size() + 1)).value_or(0);
  return 0;
}

OomKills oom_kills() {
  const std::string dir = own_cgroup_dir();
  return {dir.empty() ? 0 : counter(read_text(dir + "/memory.events"), "oom_kill"), counter(read_text("/proc/vmstat"), "oom_kill")};
}

std::optional<HostMemoryLimit> host_memory_limit() {
  const std::string dir = own_cgroup_dir();
  return host_memory_limit_from(read_text("/proc/meminfo"), dir.empty() ? "" : read_text(dir + "/memory.max"),
                                dir.empty() ? "" : read_text(dir + "/memory.current"));
}

}  // namespace gpubench
