#include "core/device/host_interference.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace gpubench {
namespace {

double clamped_share(double value) { return std::clamp(value, 0.0, 1.0); }

template <typename T>
nlohmann::json or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

// PSI "some" during the window and its avg10 at the start; null without the file.
nlohmann::json pressure_json(const std::optional<Pressure>& begin, const std::optional<Pressure>& end, double window_s) {
  if (!begin || !end) return nullptr;
  const double stalled_us = end->some_total_us >= begin->some_total_us
                                ? static_cast<double>(end->some_total_us - begin->some_total_us)
                                : 0.0;
  return {{"some_avg10_percent_at_start", begin->some_avg10_percent},
          {"some_share", window_s > 0 ? nlohmann::json(clamped_share(stalled_us / (window_s * 1e6))) : nlohmann::json()}};
}

// Machine-wide shares of the window, from /proc/stat: nullopt where either sample lacks it.
struct CpuShares {
  double own = 0, other = 0, steal = 0;
};
std::optional<CpuShares> cpu_shares(const HostSample& begin, const HostSample& end) {
  if (!begin.machine || !end.machine || end.machine->total() <= begin.machine->total()) return std::nullopt;
  // The machine's capacity over the window as /proc/stat counted it: about window x CPUs.
  const double capacity_s = ticks_to_seconds(end.machine->total() - begin.machine->total());
  const double busy_s = ticks_to_seconds(end.machine->busy - std::min(end.machine->busy, begin.machine->busy));
  const double steal_s = ticks_to_seconds(end.machine->steal - std::min(end.machine->steal, begin.machine->steal));
  const double own_s = std::max(0.0, end.own_cpu_s - begin.own_cpu_s);
  return CpuShares{clamped_share(own_s / capacity_s), clamped_share((busy_s - own_s) / capacity_s),
                   clamped_share(steal_s / capacity_s)};
}

// The row's warning: each threshold passed, in one sentence; "" when none is.
std::string warning_text(const CpuShares& shares) {
  std::vector<std::string> parts;
  if (shares.other > kOtherCpuShareLimit)
    parts.push_back(fmt::format("other processes took {:.0f}% of the machine's CPU during the measured steps (over {:.0f}%)",
                                shares.other * 100, kOtherCpuShareLimit * 100));
  if (shares.steal > kStealShareLimit)
    parts.push_back(fmt::format("the hypervisor stole {:.0f}% of the CPU during the measured steps (over {:.0f}%)",
                                shares.steal * 100, kStealShareLimit * 100));
  if (parts.empty()) return "";
  std::string text = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) text += "; " + parts[i];
  return text + ": the machine was not quiet, its times are not this config's alone";
}

}  // namespace

nlohmann::json interference_json(const HostSample& begin, const HostSample& end, const HostState& at_start,
                                 OwnCpuScope scope) {
  const double window_s = std::max(0.0, end.steady_s - begin.steady_s);
  const std::optional<CpuShares> shares = cpu_shares(begin, end);
  const bool judged = shares && window_s >= kMinJudgedWindowS;
  const std::string warning = judged ? warning_text(*shares) : "";
  const auto share = [&](double CpuShares::*field) { return shares ? nlohmann::json((*shares).*field) : nlohmann::json(); };
  return {{"window_s", window_s},
          {"machine_cpus", at_start.online_cpus},
          {"own_cpu_counts", to_string(scope)},
          {"own_processes", end.own_processes},
          {"own_cpu_share", share(&CpuShares::own)},
          {"other_cpu_share", share(&CpuShares::other)},
          {"steal_share", share(&CpuShares::steal)},
          {"load_1min_at_start", or_null(at_start.load_1min)},
          {"cpu_governor", or_null(at_start.governor)},
          {"cpu0_mhz", or_null(at_start.cpu0_mhz)},
          {"cpu_pressure", pressure_json(begin.cpu_pressure, end.cpu_pressure, window_s)},
          {"memory_pressure", pressure_json(begin.memory_pressure, end.memory_pressure, window_s)},
          {"thresholds",
           {{"other_cpu_share", kOtherCpuShareLimit}, {"steal_share", kStealShareLimit}, {"min_window_s", kMinJudgedWindowS}}},
          {"judged", judged},
          {"disturbed", !warning.empty()},
          {"warning", warning.empty() ? nlohmann::json() : nlohmann::json(warning)}};
}

}  // namespace gpubench
