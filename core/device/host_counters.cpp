#include "core/device/host_counters.h"

#include <sstream>
#include <stdexcept>
#include <vector>

namespace gpubench {
namespace {

// Whitespace-separated unsigned integers of `line` from its `skip`-th word on; nullopt when
// one of them is not a number.
std::optional<std::vector<std::uint64_t>> counters_after(const std::string& line, std::size_t skip) {
  std::istringstream words(line);
  std::string word;
  for (std::size_t i = 0; i < skip; ++i)
    if (!(words >> word)) return std::nullopt;
  std::vector<std::uint64_t> values;
  while (words >> word) {
    if (word.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    values.push_back(std::stoull(word));
  }
  return values;
}

// The line of `text` that starts with `prefix`, or "".
std::string line_starting(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
    if (line.compare(0, prefix.size(), prefix) == 0) return line;
  return "";
}

}  // namespace

std::optional<CpuTicks> parse_proc_stat(const std::string& text) {
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice"; kernels before
  // 2.6.11 stop after softirq (no steal), which still reads.
  const std::string line = line_starting(text, "cpu ");
  if (line.empty()) return std::nullopt;
  const auto values = counters_after(line, 1);
  if (!values || values->size() < 7) return std::nullopt;
  const auto& v = *values;
  CpuTicks ticks;
  ticks.busy = v[0] + v[1] + v[2] + v[5] + v[6];
  ticks.idle = v[3] + v[4];
  ticks.steal = v.size() > 7 ? v[7] : 0;
  return ticks;
}

std::optional<double> parse_loadavg_1min(const std::string& text) {
  std::istringstream words(text);
  double load = -1;
  if (!(words >> load) || load < 0) return std::nullopt;
  return load;
}

std::optional<Pressure> parse_pressure(const std::string& text) {
  // "some avg10=1.23 avg60=0.50 avg300=0.10 total=123456"
  const std::string line = line_starting(text, "some ");
  if (line.empty()) return std::nullopt;
  std::optional<double> avg10;
  std::optional<std::uint64_t> total;
  std::istringstream words(line.substr(5));
  std::string word;
  try {
    while (words >> word) {
      if (word.compare(0, 6, "avg10=") == 0) avg10 = std::stod(word.substr(6));
      if (word.compare(0, 6, "total=") == 0) total = std::stoull(word.substr(6));
    }
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!avg10 || !total) return std::nullopt;
  return Pressure{*avg10, *total};
}

std::optional<ProcessCpu> parse_pid_stat(const std::string& text) {
  const std::size_t name_end = text.rfind(')');
  if (name_end == std::string::npos) return std::nullopt;
  // After the name: state(3) ppid(4) pgrp(5) session tty_nr tpgid flags minflt cminflt
  // majflt cmajflt utime(14) stime(15).
  std::istringstream words(text.substr(name_end + 1));
  std::vector<std::string> fields;
  std::string word;
  while (fields.size() < 13 && words >> word) fields.push_back(word);
  if (fields.size() < 13) return std::nullopt;
  try {
    ProcessCpu cpu;
    cpu.process_group = std::stol(fields[2]);
    cpu.cpu_ticks = std::stoull(fields[11]) + std::stoull(fields[12]);
    return cpu;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace gpubench
