#include "core/device/host_sample.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpubench {
namespace {

double seconds_of(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; }

// This process's threads and its waited-for children, to the microsecond.
double process_cpu_s() {
  double total = 0;
  for (const int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    if (getrusage(who, &usage) == 0) total += seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime);
  }
  return total;
}

// Every process of this one's process group, from /proc/<pid>/stat: one small read per
// process on the machine, done twice per config, and only for several ranks.
std::pair<double, int> process_group_cpu_s() {
  const long group = static_cast<long>(getpgrp());
  std::uint64_t ticks = 0;
  int processes = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto cpu = parse_pid_stat(kernel_file_text(entry.path().string() + "/stat"));
    if (!cpu || cpu->process_group != group) continue;
    ticks += cpu->cpu_ticks;
    ++processes;
  }
  if (processes == 0) return {process_cpu_s(), 1};  // no /proc: at least this process
  return {ticks_to_seconds(ticks), processes};
}

template <typename T>
std::optional<T> first_token(const std::string& text) {
  std::istringstream in(text);
  T value{};
  if (!(in >> value)) return std::nullopt;
  return value;
}

}  // namespace

std::string kernel_file_text(const std::string& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string to_string(OwnCpuScope scope) { return scope == OwnCpuScope::Process ? "process" : "process_group"; }

double ticks_to_seconds(std::uint64_t ticks) {
  static const long per_second = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
  return static_cast<double>(ticks) / static_cast<double>(per_second);
}

HostSample sample_host(OwnCpuScope scope) {
  HostSample sample;
  sample.steady_s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  sample.machine = parse_proc_stat(kernel_file_text("/proc/stat"));
  if (scope == OwnCpuScope::Process) {
    sample.own_cpu_s = process_cpu_s();
  } else {
    const auto [seconds, processes] = process_group_cpu_s();
    sample.own_cpu_s = seconds;
    sample.own_processes = processes;
  }
  sample.cpu_pressure = parse_pressure(kernel_file_text("/proc/pressure/cpu"));
  sample.memory_pressure = parse_pressure(kernel_file_text("/proc/pressure/memory"));
  return sample;
}

HostState read_host_state() {
  HostState state;
  state.load_1min = parse_loadavg_1min(kernel_file_text("/proc/loadavg"));
  state.online_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  const std::string cpufreq = "/sys/devices/system/cpu/cpu0/cpufreq/";
  if (auto governor = first_token<std::string>(kernel_file_text(cpufreq + "scaling_governor"))) state.governor = governor;
  if (auto khz = first_token<double>(kernel_file_text(cpufreq + "scaling_cur_freq"))) state.cpu0_mhz = *khz / 1000;
  return state;
}

}  // namespace gpubench
