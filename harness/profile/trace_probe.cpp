#include "harness/profile/trace_probe.h"

#include <algorithm>
#include <atomic>
#include <chrono>

#include "core/io/atomic_file.h"
#include "harness/profile/kineto_trace.h"
#include "core/io/json_text.h"

namespace gpubench {
namespace {

// A small index per thread, in order of first use: readable in a viewer and stable
// within a process, unlike OS thread ids.
int this_thread_index() {
  static std::atomic<int> next{0};
  thread_local const int index = next.fetch_add(1);
  return index;
}

// pid per set: the rank, unless two configs share a rank in this file; then config k
// (in order of first appearance) uses 1000 * k + rank, so each (config, rank) is its own
// process row and the rank is still readable in the last digits.
std::vector<int> assign_pids(const std::vector<TraceSpanSet>& sets) {
  std::vector<std::string> configs;
  std::map<int, std::string> config_of_rank;
  bool clash = false;
  for (const auto& set : sets) {
    if (std::find(configs.begin(), configs.end(), set.config_id) == configs.end()) configs.push_back(set.config_id);
    const auto [it, inserted] = config_of_rank.emplace(set.rank, set.config_id);
    if (!inserted && it->second != set.config_id) clash = true;
  }
  std::vector<int> pids;
  for (const auto& set : sets) {
    const auto ordinal = std::find(configs.begin(), configs.end(), set.config_id) - configs.begin();
    pids.push_back(clash ? static_cast<int>(ordinal) * 1000 + set.rank : set.rank);
  }
  return pids;
}

}  // namespace

nlohmann::json chrome_trace_json(const std::vector<TraceSpanSet>& sets) {
  nlohmann::json events = nlohmann::json::array();
  const std::vector<int> pids = assign_pids(sets);
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const TraceSpanSet& set = sets[i];
    const int pid = pids[i];
    events.push_back(trace_metadata_event("process_name", pid, 0,
                              {{"name", "gpubench rank " + std::to_string(set.rank) + " \u00b7 " + set.config_id}}));
    events.push_back(trace_metadata_event("process_sort_index", pid, 0, {{"sort_index", pid}}));
    for (const auto& [tid, name] : set.thread_names) {
      events.push_back(trace_metadata_event("thread_name", pid, tid, {{"name", name}}));
      events.push_back(trace_metadata_event("thread_sort_index", pid, tid, {{"sort_index", tid}}));
    }
    // Parents before children (earlier start, then longer first): the order a reader
    // expects, and what older viewers need to nest complete events on one track.
    std::vector<const TraceSpan*> spans;
    for (const auto& span : set.spans) spans.push_back(&span);
    std::stable_sort(spans.begin(), spans.end(), [](const TraceSpan* a, const TraceSpan* b) {
      if (a->start_us != b->start_us) return a->start_us < b->start_us;
      return a->duration_us > b->duration_us;
    });
    for (const TraceSpan* span : spans) {
      events.push_back({{"name", span->name},
                        {"cat", span->category},
                        {"ph", "X"},
                        {"ts", span->start_us},
                        {"dur", span->duration_us},
                        {"pid", pid},
                        {"tid", span->tid},
                        {"args", span->args}});
    }
  }
  nlohmann::json trace = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}};
  trace["otherData"] = {{"generator", "gpubench"}, {"clock", "steady_clock (CLOCK_MONOTONIC), microseconds"}};
#ifdef GPUBENCH_VERSION
  trace["otherData"]["version"] = GPUBENCH_VERSION;
#endif
  return trace;
}

void write_chrome_trace(const std::string& path, const std::vector<TraceSpanSet>& sets) {
  write_file_atomically(path, json_text(chrome_trace_json(sets)) + "\n");
}

double TraceProbe::now_us() {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now().time_since_epoch());
  return static_cast<double>(ns.count()) / 1000.0;
}

void TraceProbe::open(OpenSpan& slot, std::string name, const char* category, nlohmann::json args) {
  const int tid = this_thread_index();
  if (set_.thread_names.count(tid) == 0) set_.thread_names[tid] = "host thread " + std::to_string(tid);
  slot.span = TraceSpan{std::move(name), category, now_us(), 0, tid, std::move(args)};
  slot.open = true;
}

void TraceProbe::close(OpenSpan& slot) {
  if (!slot.open) return;
  slot.span.duration_us = now_us() - slot.span.start_us;
  set_.spans.push_back(std::move(slot.span));
  slot.open = false;
}

void TraceProbe::run_begin(const std::string& config_id) {
  set_.config_id = config_id;
  set_.rank = rank_;
  open(run_, config_id, "run", {{"config_id", config_id}, {"rank", rank_}});
}

void TraceProbe::run_end() {
  close(phase_);
  close(step_);
  close(run_);
}

void TraceProbe::step_begin(int step, bool measured) {
  step_number_ = step;
  step_measured_ = measured;
  open(step_, (measured ? "step " : "warmup step ") + std::to_string(step), "step",
       {{"step", step}, {"measured", measured}});
}

void TraceProbe::step_end(int, bool) {
  close(phase_);
  close(step_);
}

void TraceProbe::phase_begin(Phase phase) {
  open(phase_, phase_name(phase), "phase", {{"step", step_number_}, {"measured", step_measured_}});
}

void TraceProbe::phase_end(Phase) { close(phase_); }

void TraceProbe::add_device_span(const std::string& track, const std::string& name, double start_us,
                                 double duration_us, nlohmann::json args) {
  auto it = device_tracks_.find(track);
  if (it == device_tracks_.end()) {
    const int tid = kFirstDeviceTrackTid + static_cast<int>(device_tracks_.size());
    it = device_tracks_.emplace(track, tid).first;
    set_.thread_names[tid] = track;
  }
  set_.spans.push_back(TraceSpan{name, "device", start_us, duration_us, it->second, std::move(args)});
}

TraceSpanSet TraceProbe::span_set() const {
  TraceSpanSet set = set_;
  set.rank = rank_;
  const double now = now_us();
  for (const OpenSpan* slot : {&phase_, &step_, &run_}) {
    if (!slot->open) continue;
    TraceSpan span = slot->span;
    span.duration_us = now - span.start_us;
    span.args["incomplete"] = true;
    set.spans.push_back(std::move(span));
  }
  return set;
}

void TraceProbe::write_trace(const std::string& path) const { write_chrome_trace(path, {span_set()}); }

}  // namespace gpubench
