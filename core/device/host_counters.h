#pragma once
// The kernel's text files about the machine's CPU, read into numbers: pure functions of the
// text, so tests hold them against fixtures. Each returns nullopt on text it cannot read
// (a missing line, a field that is not a number): a kernel that lacks a file or formats it
// otherwise is a figure the row reports as null, never a failed config.
#include <cstdint>
#include <optional>
#include <string>

namespace gpubench {

// The aggregate "cpu " line of /proc/stat, in clock ticks (USER_HZ) summed over the online
// CPUs. busy = user + nice + system + irq + softirq (guest time is already inside user and
// nice); idle = idle + iowait; steal is time a hypervisor gave another guest; total is the
// three together: the machine's capacity over the same interval.
struct CpuTicks {
  std::uint64_t busy = 0;
  std::uint64_t idle = 0;
  std::uint64_t steal = 0;
  std::uint64_t total() const { return busy + idle + steal; }
};
std::optional<CpuTicks> parse_proc_stat(const std::string& text);

// /proc/loadavg: the 1-minute load average (runnable + uninterruptible tasks).
std::optional<double> parse_loadavg_1min(const std::string& text);

// A PSI file (/proc/pressure/cpu, /proc/pressure/memory): its "some" line, the share of time
// at least one task waited (avg10, a percentage over the last 10 s) and the total stall in
// microseconds since boot.
struct Pressure {
  double some_avg10_percent = 0;
  std::uint64_t some_total_us = 0;
};
std::optional<Pressure> parse_pressure(const std::string& text);

// /proc/<pid>/stat: the process group (field 5) and the CPU the process has used, user +
// system (fields 14 and 15, clock ticks, all its threads). The command name (field 2) may
// hold spaces and parentheses, so fields are counted from the last ')'.
struct ProcessCpu {
  long process_group = 0;
  std::uint64_t cpu_ticks = 0;
};
std::optional<ProcessCpu> parse_pid_stat(const std::string& text);

}  // namespace gpubench
