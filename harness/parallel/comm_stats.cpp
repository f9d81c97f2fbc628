#include "harness/parallel/comm_stats.h"

#include <algorithm>
#include <utility>

#include "core/stats/summary.h"
#include "core/stats/summary_json.h"

namespace gpubench {
namespace {

// Length of the union of [start, end) intervals, each clipped to end no later than `until`.
double union_length(std::vector<std::pair<double, double>> intervals, double until) {
  for (auto& interval : intervals) interval.second = std::min(interval.second, until);
  std::sort(intervals.begin(), intervals.end());
  double total = 0, start = 0, end = 0;
  bool open = false;
  for (const auto& [s, e] : intervals) {
    if (e <= s) continue;
    if (open && s <= end) {
      end = std::max(end, e);
      continue;
    }
    if (open) total += end - start;
    start = s;
    end = e;
    open = true;
  }
  if (open) total += end - start;
  return total;
}

std::vector<std::pair<double, double>> intervals(const StepComm& step) {
  std::vector<std::pair<double, double>> out;
  for (const auto& collective : step.collectives) out.emplace_back(collective.launch_ms, collective.complete_ms);
  return out;
}

// Per kind: count and bytes of one step's collectives.
nlohmann::json per_kind(const StepComm& step) {
  nlohmann::json kinds = nlohmann::json::object();
  for (const auto& collective : step.collectives) {
    nlohmann::json& entry = kinds[to_string(collective.kind)];
    if (entry.is_null()) entry = {{"count", 0}, {"bytes", std::int64_t{0}}};
    entry["count"] = entry["count"].get<int>() + 1;
    entry["bytes"] = entry["bytes"].get<std::int64_t>() + collective.bytes;
  }
  return kinds;
}

std::vector<double> numbers(const nlohmann::json& array) {
  std::vector<double> out;
  if (array.is_array())
    for (const auto& value : array) out.push_back(value.get<double>());
  return out;
}

double sum(const std::vector<double>& values) {
  double total = 0;
  for (double value : values) total += value;
  return total;
}

double share(double part, double whole) { return whole > 0 ? std::clamp(part / whole, 0.0, 1.0) : 0.0; }

}  // namespace

std::string to_string(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::AllReduce: return "all_reduce";
    case CollectiveKind::AllGather: return "all_gather";
    case CollectiveKind::ReduceScatter: return "reduce_scatter";
  }
  return "?";
}

bool StepComm::device_timed() const {
  return !collectives.empty() && std::all_of(collectives.begin(), collectives.end(),
                                             [](const CollectiveTiming& c) { return c.device_ms >= 0; });
}

double StepComm::comm_ms() const {
  if (!device_timed()) return union_length(intervals(*this), finish_ms);
  double total = 0;
  for (const auto& collective : collectives) total += collective.device_ms;
  return total;
}

double StepComm::hidden_ms() const {
  if (device_timed() || !exposed_known) return -1;
  if (waited_ms >= 0) return std::max(0.0, comm_ms() - waited_ms);
  return union_length(intervals(*this), backward_ms);
}

void CommRecorder::record(const StepComm& step) { record(step, measuring_); }

void CommRecorder::record(const StepComm& step, bool measured) {
  if (measured) steps_.push_back(step);
}

nlohmann::json CommRecorder::samples() const {
  nlohmann::json comm = nlohmann::json::array(), hidden = nlohmann::json::array(), exposed = nlohmann::json::array();
  nlohmann::json buckets = nlohmann::json::array();
  for (const auto& step : steps_) {
    comm.push_back(step.comm_ms());
    hidden.push_back(step.hidden_ms());
    exposed.push_back(step.exposed_ms());
    nlohmann::json per_bucket = nlohmann::json::array();
    for (const auto& collective : step.collectives)
      per_bucket.push_back(collective.device_ms >= 0 ? collective.device_ms : collective.complete_ms - collective.launch_ms);
    buckets.push_back(per_bucket);
  }
  nlohmann::json order = nlohmann::json::array();
  if (!steps_.empty())
    for (const auto& collective : steps_.front().collectives)
      order.push_back(to_string(collective.kind) + ":" + std::to_string(collective.subject));
  return {{"steps", steps_.size()},   {"comm_ms", comm},     {"hidden_ms", hidden},
          {"exposed_ms", exposed},    {"bucket_ms", buckets},
          {"collectives", steps_.empty() ? nlohmann::json::object() : per_kind(steps_.front())},
          {"collective_order", order}};
}

nlohmann::json merge_rank_stats(const std::vector<nlohmann::json>& ranks) {
  std::vector<double> all_comm, all_exposed;
  double comm_total = 0, hidden_total = 0, exposed_total = 0, step_total = 0;
  // A device-timed step's hidden time is unknown (-1): its overlap is null, not a guess;
  // so is the exposed time of a step no host wait saw.
  bool all_hidden_known = true, all_exposed_known = true;
  nlohmann::json per_rank = nlohmann::json::array();
  bool same_order = true;
  for (const auto& rank : ranks) {
    const nlohmann::json& samples = rank.at("samples");
    same_order = same_order && samples.value("collective_order", nlohmann::json::array()) ==
                                   ranks.front().at("samples").value("collective_order", nlohmann::json::array());
    const auto comm = numbers(samples.at("comm_ms"));
    const auto hidden = numbers(samples.at("hidden_ms"));
    const bool hidden_known = std::none_of(hidden.begin(), hidden.end(), [](double ms) { return ms < 0; });
    all_hidden_known = all_hidden_known && hidden_known;
    const auto exposed = numbers(samples.at("exposed_ms"));
    const bool exposed_known = std::none_of(exposed.begin(), exposed.end(), [](double ms) { return ms < 0; });
    all_exposed_known = all_exposed_known && exposed_known;
    const auto step = numbers(rank.at("step_ms"));
    all_comm.insert(all_comm.end(), comm.begin(), comm.end());
    all_exposed.insert(all_exposed.end(), exposed.begin(), exposed.end());
    comm_total += sum(comm);
    hidden_total += sum(hidden);
    exposed_total += sum(exposed);
    step_total += sum(step);
    // Each bucket's own launch-to-completion time: the median over this rank's steps.
    nlohmann::json bucket_medians = nlohmann::json::array();
    const nlohmann::json& bucket_ms = samples.at("bucket_ms");
    const std::size_t bucket_count = bucket_ms.empty() ? 0 : bucket_ms.front().size();
    for (std::size_t b = 0; b < bucket_count; ++b) {
      std::vector<double> values;
      for (const auto& step_buckets : bucket_ms)
        if (b < step_buckets.size()) values.push_back(step_buckets[b].get<double>());
      bucket_medians.push_back(percentile(values, 0.5));
    }
    nlohmann::json entry = rank;
    entry.erase("samples");
    entry.erase("step_ms");
    entry["collectives_per_step"] = samples.value("collectives", nlohmann::json::object());
    entry["steps"] = samples.at("steps");
    entry["step_ms"] = to_json(summarize(step));
    entry["comm_ms"] = to_json(summarize(comm));
    entry["exposed_comm_ms"] = exposed_known ? to_json(summarize(exposed)) : nlohmann::json();
    entry["overlap_share"] = hidden_known ? nlohmann::json(share(sum(hidden), sum(comm))) : nlohmann::json();
    entry["comm_share_of_step"] = share(sum(comm), sum(step));
    entry["exposed_comm_share"] = exposed_known ? nlohmann::json(share(sum(exposed), sum(step))) : nlohmann::json();
    entry["bucket_comm_ms_median"] = bucket_medians;
    per_rank.push_back(entry);
  }
  return {{"comm_ms", to_json(summarize(all_comm))},
          {"exposed_comm_ms", all_exposed_known ? to_json(summarize(all_exposed)) : nlohmann::json()},
          {"overlap_share", all_hidden_known ? nlohmann::json(share(hidden_total, comm_total)) : nlohmann::json()},
          {"comm_share_of_step", share(comm_total, step_total)},
          {"exposed_comm_share", all_exposed_known ? nlohmann::json(share(exposed_total, step_total)) : nlohmann::json()},
          // Every rank's collectives, by kind, in one measured step (the same on every rank:
          // each issues the same sequence, which collective_order_identical checks).
          {"collectives_per_step", ranks.empty() ? nlohmann::json::object()
                                                 : ranks.front().at("samples").value("collectives", nlohmann::json::object())},
          {"collective_order_identical", same_order},
          {"per_rank", per_rank}};
}

}  // namespace gpubench
