#include "harness/profile/cupti_summary.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>

#include "core/stats/summary_json.h"

namespace gpubench {
namespace {

constexpr double kNsPerMs = 1e6;
constexpr double kNsPerUs = 1e3;
constexpr std::size_t kNoStep = std::numeric_limits<std::size_t>::max();

using Interval = std::pair<std::uint64_t, std::uint64_t>;

// Measured steps sorted by start, with a lookup from a timestamp to the step window
// [start, end) that contains it.
class StepLookup {
 public:
  explicit StepLookup(std::vector<StepWindow> steps) : steps_(std::move(steps)) {
    std::sort(steps_.begin(), steps_.end(),
              [](const StepWindow& a, const StepWindow& b) { return a.start_ns < b.start_ns; });
  }
  const std::vector<StepWindow>& steps() const { return steps_; }
  std::size_t find(std::uint64_t t) const {
    auto after = std::upper_bound(steps_.begin(), steps_.end(), t,
                                  [](std::uint64_t value, const StepWindow& w) { return value < w.start_ns; });
    if (after == steps_.begin()) return kNoStep;
    const auto index = static_cast<std::size_t>(std::distance(steps_.begin(), after) - 1);
    return t < steps_[index].end_ns ? index : kNoStep;
  }

 private:
  std::vector<StepWindow> steps_;
};

// Per measured step, what its kernels did.
struct StepAccumulator {
  std::vector<Interval> kernels;  // clipped to the step
  std::uint64_t first_start = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t last_end = 0;
  std::array<double, kPhaseCount> phase_ns{};
  double outside_ns = 0;
};

std::uint64_t overlap(Interval a, std::uint64_t start, std::uint64_t end) {
  const std::uint64_t lo = std::max(a.first, start), hi = std::min(a.second, end);
  return hi > lo ? hi - lo : 0;
}

// Length of the union of intervals: concurrent kernels count once toward "busy".
std::uint64_t union_length(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::uint64_t total = 0, covered_to = 0;
  for (const auto& [start, end] : intervals) {
    const std::uint64_t from = std::max(start, covered_to);
    if (end > from) total += end - from;
    covered_to = std::max(covered_to, end);
  }
  return total;
}

// A kernel's time in its step's phases. One whose launch is known belongs, whole, to the
// phase it was launched in (or "outside phases"): by default no phase waits for the
// device, so kernels run after their phase's host window closed. One without a launch
// record (CUPTI dropped it) is clipped to each phase window it overlaps, which is exact
// only under --sync-phases.
void attribute_to_phases(StepAccumulator& acc, Interval kernel, std::optional<std::uint64_t> launch_ns,
                         const std::vector<const PhaseWindow*>& windows) {
  const std::uint64_t length = kernel.second - kernel.first;
  if (launch_ns) {
    for (const PhaseWindow* w : windows)
      if (*launch_ns >= w->start_ns && *launch_ns < w->end_ns) {
        acc.phase_ns[static_cast<std::size_t>(w->phase)] += static_cast<double>(length);
        return;
      }
    acc.outside_ns += static_cast<double>(length);
    return;
  }
  std::uint64_t attributed = 0;
  for (const PhaseWindow* w : windows) {
    const std::uint64_t ns = overlap(kernel, w->start_ns, w->end_ns);
    acc.phase_ns[static_cast<std::size_t>(w->phase)] += static_cast<double>(ns);
    attributed += ns;
  }
  acc.outside_ns += static_cast<double>(length > attributed ? length - attributed : 0);
}

std::vector<KernelStat> top_kernels(
    const std::unordered_map<std::string, std::pair<std::size_t, std::uint64_t>>& by_name, std::size_t top_k) {
  std::vector<KernelStat> stats;
  stats.reserve(by_name.size());
  for (const auto& [name, count_ns] : by_name) {
    const double total_ns = static_cast<double>(count_ns.second);
    stats.push_back(
        {name, count_ns.first, total_ns / kNsPerMs, total_ns / kNsPerUs / static_cast<double>(count_ns.first)});
  }
  // Ties broken by name so reports are stable across runs.
  std::sort(stats.begin(), stats.end(), [](const KernelStat& a, const KernelStat& b) {
    return a.total_ms != b.total_ms ? a.total_ms > b.total_ms : a.name < b.name;
  });
  if (stats.size() > top_k) stats.resize(top_k);
  return stats;
}

}  // namespace

CuptiSummary summarize_cupti(const CuptiRecords& records, const std::vector<StepWindow>& step_windows,
                             const std::vector<PhaseWindow>& phase_windows, std::size_t top_k) {
  CuptiSummary out;
  const StepLookup lookup(step_windows);
  const std::vector<StepWindow>& steps = lookup.steps();
  out.measured_steps = steps.size();
  out.dropped_records = records.dropped;
  out.kernels_total = records.kernels.size();

  std::unordered_map<int, std::vector<const PhaseWindow*>> phases_of_step;
  for (const PhaseWindow& w : phase_windows) phases_of_step[w.step].push_back(&w);
  static const std::vector<const PhaseWindow*> kNoPhases;
  const auto phases_of = [&](std::size_t index) -> const std::vector<const PhaseWindow*>& {
    const auto found = phases_of_step.find(steps[index].step);
    return found != phases_of_step.end() ? found->second : kNoPhases;
  };
  // When each kernel, copy and memset was launched: its runtime or driver call's start, by
  // correlation id (as libkineto links them; cuBLAS, cuDNN and NCCL launch through the
  // driver). Activity belongs to the step that launched it.
  std::unordered_map<std::uint32_t, std::uint64_t> launched_at;
  for (const auto* calls : {&records.runtime_calls, &records.driver_calls})
    for (const ApiCallRecord& r : *calls)
      if (r.correlation_id != 0) launched_at.emplace(r.correlation_id, r.start_ns);
  const auto launch_of = [&](std::uint32_t correlation_id) -> std::optional<std::uint64_t> {
    const auto found = correlation_id != 0 ? launched_at.find(correlation_id) : launched_at.end();
    if (found == launched_at.end()) return std::nullopt;
    return found->second;
  };

  std::vector<StepAccumulator> acc(steps.size());
  std::unordered_map<std::string, std::pair<std::size_t, std::uint64_t>> by_name;  // count, ns
  for (const KernelRecord& k : records.kernels) {
    if (!has_timing(k.start_ns, k.end_ns)) {
      ++out.untimed_records;
      continue;
    }
    const std::optional<std::uint64_t> launch = launch_of(k.correlation_id);
    const std::size_t index = lookup.find(launch.value_or(k.start_ns));
    if (index == kNoStep) continue;
    // A kernel of a known launch counts whole (it may run after its step's host window);
    // one without is clipped to the window it started in.
    const Interval clipped{k.start_ns, launch ? std::max(k.start_ns, k.end_ns)
                                              : std::max(k.start_ns, std::min(k.end_ns, steps[index].end_ns))};
    StepAccumulator& a = acc[index];
    a.kernels.push_back(clipped);
    attribute_to_phases(a, clipped, launch, phases_of(index));
    a.first_start = std::min(a.first_start, clipped.first);
    a.last_end = std::max(a.last_end, clipped.second);
    auto& entry = by_name[k.name];
    ++entry.first;
    entry.second += clipped.second - clipped.first;
    ++out.kernels_in_steps;
    if (!launch) ++out.kernels_by_start_time;
  }

  std::vector<double> busy_share, kernel_count, gap_us, outside_ms;
  std::array<std::vector<double>, kPhaseCount> phase_ms;
  double busy_ns_total = 0, step_ns_total = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    StepAccumulator& a = acc[i];
    const double step_ns = static_cast<double>(steps[i].end_ns - steps[i].start_ns);
    // At most the step: in steady state a step's kernels take at most its period.
    const double busy_ns = std::min(step_ns, static_cast<double>(union_length(a.kernels)));
    if (steps[i].end_ns > steps[i].start_ns) busy_share.push_back(busy_ns / step_ns);
    busy_ns_total += busy_ns;
    step_ns_total += steps[i].end_ns > steps[i].start_ns ? step_ns : 0;
    kernel_count.push_back(static_cast<double>(a.kernels.size()));
    for (std::size_t p = 0; p < kPhaseCount; ++p) phase_ms[p].push_back(a.phase_ns[p] / kNsPerMs);
    outside_ms.push_back(a.outside_ns / kNsPerMs);

    // Idle gap to the next step, only between consecutive steps that both ran kernels.
    if (i + 1 < steps.size() && steps[i + 1].step == steps[i].step + 1 && !a.kernels.empty() &&
        !acc[i + 1].kernels.empty()) {
      const std::uint64_t next = acc[i + 1].first_start;
      gap_us.push_back(next > a.last_end ? static_cast<double>(next - a.last_end) / kNsPerUs : 0.0);
    }
  }

  out.gpu_busy_share = summarize(busy_share);
  out.gpu_busy_share_overall = step_ns_total > 0 ? busy_ns_total / step_ns_total : 0;
  out.kernels_per_step = summarize(kernel_count);
  out.idle_gap_between_steps_us = summarize(gap_us);
  for (std::size_t p = 0; p < kPhaseCount; ++p) {
    out.kernel_ms_by_phase[p].per_step_ms = summarize(phase_ms[p]);
    for (double ms : phase_ms[p]) out.kernel_ms_by_phase[p].total_ms += ms;
  }
  out.kernel_ms_outside_phases.per_step_ms = summarize(outside_ms);
  for (double ms : outside_ms) out.kernel_ms_outside_phases.total_ms += ms;
  for (const auto& [name, count_ns] : by_name) out.kernel_ms_total += static_cast<double>(count_ns.second) / kNsPerMs;
  out.top_kernels = top_kernels(by_name, top_k);

  // Bytes / copy time is the achieved bandwidth of the copies themselves, not of the step.
  for (const MemcpyRecord& m : records.memcpys) {
    if (!has_timing(m.start_ns, m.end_ns)) {
      ++out.untimed_records;
      continue;
    }
    if (lookup.find(launch_of(m.correlation_id).value_or(m.start_ns)) == kNoStep) continue;
    CopyStat& c = out.copies[m.kind];
    ++c.count;
    c.bytes += m.bytes;
    c.time_ms += static_cast<double>(m.end_ns > m.start_ns ? m.end_ns - m.start_ns : 0) / kNsPerMs;
    if (m.pinned_host) ++c.pinned;
  }
  for (auto& [kind, c] : out.copies) c.gb_per_s = c.time_ms > 0 ? static_cast<double>(c.bytes) / (c.time_ms * 1e6) : 0;

  for (const MemsetRecord& m : records.memsets) {
    if (!has_timing(m.start_ns, m.end_ns)) {
      ++out.untimed_records;
      continue;
    }
    if (lookup.find(launch_of(m.correlation_id).value_or(m.start_ns)) == kNoStep) continue;
    ++out.memset_count;
    out.memset_bytes += m.bytes;
  }
  for (const ApiCallRecord& r : records.runtime_calls)
    if (lookup.find(r.start_ns) != kNoStep) ++out.runtime_calls_in_steps;
  for (const ApiCallRecord& r : records.driver_calls)
    if (lookup.find(r.start_ns) != kNoStep) ++out.driver_calls_in_steps;
  return out;
}

nlohmann::json to_json(const CuptiSummary& s) {
  const auto share_of = [&](double ms) { return s.kernel_ms_total > 0 ? ms / s.kernel_ms_total : 0; };
  const auto phase_json = [&](const PhaseKernelTime& t) {
    return nlohmann::json{
        {"total_ms", t.total_ms}, {"per_step_ms", to_json(t.per_step_ms)}, {"share", share_of(t.total_ms)}};
  };
  nlohmann::json by_phase = nlohmann::json::object();
  for (Phase phase : kAllPhases)
    by_phase[phase_name(phase)] = phase_json(s.kernel_ms_by_phase[static_cast<std::size_t>(phase)]);
  by_phase["outside_phases"] = phase_json(s.kernel_ms_outside_phases);

  nlohmann::json top = nlohmann::json::array();
  for (const KernelStat& k : s.top_kernels) {
    top.push_back({{"name", k.name},
                   {"count", k.count},
                   {"total_ms", k.total_ms},
                   {"mean_us", k.mean_us},
                   {"share", share_of(k.total_ms)}});
  }

  // H2D and D2H are always present (zero when none ran): the pinned-vs-pageable
  // comparison reads them on every config.
  nlohmann::json copies = nlohmann::json::object();
  std::map<MemcpyKind, CopyStat> shown = s.copies;
  shown.emplace(MemcpyKind::HostToDevice, CopyStat{});
  shown.emplace(MemcpyKind::DeviceToHost, CopyStat{});
  for (const auto& [kind, c] : shown) {
    copies[memcpy_kind_name(kind)] = {{"count", c.count},
                                      {"bytes", c.bytes},
                                      {"time_ms", c.time_ms},
                                      {"gb_per_s", c.gb_per_s},
                                      {"pinned_count", c.pinned}};
  }

  return {{"measured_steps", s.measured_steps},
          {"gpu_busy_share", to_json(s.gpu_busy_share)},
          {"gpu_busy_share_overall", s.gpu_busy_share_overall},
          {"kernels_per_step", to_json(s.kernels_per_step)},
          {"kernel_ms_total", s.kernel_ms_total},
          {"kernel_ms_by_phase", by_phase},
          {"top_kernels", top},
          {"memcpy", copies},
          {"memset", {{"count", s.memset_count}, {"bytes", s.memset_bytes}}},
          {"idle_gap_between_steps_us", to_json(s.idle_gap_between_steps_us)},
          {"records",
           {{"kernels_total", s.kernels_total},
            {"kernels_in_measured_steps", s.kernels_in_steps},
            {"kernels_placed_by_start_time", s.kernels_by_start_time},
            {"runtime_calls_in_measured_steps", s.runtime_calls_in_steps},
            {"driver_calls_in_measured_steps", s.driver_calls_in_steps},
            {"untimed", s.untimed_records},
            {"dropped", s.dropped_records}}}};
}

}  // namespace gpubench
