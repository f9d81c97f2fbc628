#pragma once
// What the kernel says about the machine's CPU at one moment, read from /proc and /sys: the
// counters that two samples turn into a measurement's interference (host_interference.h),
// and the state a row records at the start of its measured steps. Whatever cannot be read
// here (no /proc/pressure on an old kernel, no cpufreq in a VM) is nullopt, never an error.
#include <optional>
#include <string>

#include "core/device/host_counters.h"

namespace gpubench {

// Whose CPU time is the config's own. A single-process config: this process, every thread
// of it (the trainer, the intra-op pool, the loader workers) plus children it has waited for
// (getrusage RUSAGE_SELF + RUSAGE_CHILDREN). A config of several ranks on this machine: the
// process group the ranks share (harness/parallel/rank_processes.cpp makes one per config),
// summed from every /proc/<pid>/stat of that group.
enum class OwnCpuScope { Process, ProcessGroup };
std::string to_string(OwnCpuScope scope);

// Counters at one moment: two of them bound a measurement.
struct HostSample {
  double steady_s = 0;                // std::chrono::steady_clock, seconds
  std::optional<CpuTicks> machine;    // /proc/stat
  double own_cpu_s = 0;               // the config's own CPU time so far, by OwnCpuScope
  int own_processes = 1;              // the processes counted in own_cpu_s
  std::optional<Pressure> cpu_pressure;     // /proc/pressure/cpu
  std::optional<Pressure> memory_pressure;  // /proc/pressure/memory
};
HostSample sample_host(OwnCpuScope scope);

// The machine's state when the measured steps start: what would slow any measurement.
struct HostState {
  std::optional<double> load_1min;       // /proc/loadavg
  int online_cpus = 0;                   // sysconf(_SC_NPROCESSORS_ONLN)
  std::optional<std::string> governor;   // cpu0's cpufreq scaling_governor
  std::optional<double> cpu0_mhz;        // cpu0's cpufreq scaling_cur_freq
};
HostState read_host_state();

// The whole of a small /proc, /sys or cgroup file, "" where it cannot be opened (the
// callers' parsers read "" as "not known here").
std::string kernel_file_text(const std::string& path);

// Clock ticks (USER_HZ, what /proc counts CPU time in) as seconds.
double ticks_to_seconds(std::uint64_t ticks);

}  // namespace gpubench
