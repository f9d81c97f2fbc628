#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/profile/probe.h"

namespace gpubench {

// One complete span ("ph":"X" in Chrome's trace-event format). Times are microseconds on
// the steady clock (CLOCK_MONOTONIC on Linux), fractional to keep nanoseconds: the same
// clock in every process on the machine, so ranks launched as separate processes line
// up in one merged trace without any offset exchange.
struct TraceSpan {
  std::string name;
  std::string category;  // "run", "step", "phase", "device", ...
  double start_us = 0;
  double duration_us = 0;
  int tid = 0;
  nlohmann::json args = nlohmann::json::object();
};

// All spans of one config on one rank: one "process" in the trace viewer.
struct TraceSpanSet {
  std::string config_id;
  int rank = 0;
  std::vector<TraceSpan> spans;
  std::map<int, std::string> thread_names;  // tid -> name shown on the track
};

// First tid of the device tracks, kept clear of the host threads' small indices.
inline constexpr int kFirstDeviceTrackTid = 1000;

// Chrome trace-event JSON for several span sets (several configs and/or ranks in one
// file): {"traceEvents":[...], "displayTimeUnit":"ms", "otherData":{...}}, with "M"
// metadata events naming each process "gpubench rank R · <config id>" and its threads.
// The pid is the rank; when two sets would share a pid (same rank, different configs)
// the later config's pids move up by 1000 per config, in order of first appearance.
nlohmann::json chrome_trace_json(const std::vector<TraceSpanSet>& sets);
// Writes chrome_trace_json(sets) to `path` atomically (a reader never sees half a file).
// Throws std::runtime_error naming the path if it cannot be written.
void write_chrome_trace(const std::string& path, const std::vector<TraceSpanSet>& sets);

// Host spans of the run, each step and each phase, for chrome://tracing / Perfetto.
// tid is a small per-thread index (0 for the first thread that records anything in this
// process), so a trace shows which thread ran what without raw OS thread ids.
class TraceProbe final : public Probe {
 public:
  explicit TraceProbe(int rank = 0) : rank_(rank) {}

  std::string name() const override { return "trace"; }
  void run_begin(const std::string& config_id) override;
  void run_end() override;
  void step_begin(int step, bool measured) override;
  void step_end(int step, bool measured) override;
  void phase_begin(Phase phase) override;
  void phase_end(Phase phase) override;

  // Extension point for device activity (CUPTI kernels, memcpys, ...): one span on the
  // named track ("GPU 0 · stream 7"), which becomes its own thread row in the viewer.
  // Times must already be on this probe's clock (steady_clock µs): give CUPTI a timestamp
  // callback returning steady_clock nanoseconds (cuptiActivityRegisterTimestampCallback)
  // or convert with an offset measured at start.
  void add_device_span(const std::string& track, const std::string& name, double start_us, double duration_us,
                       nlohmann::json args = nlohmann::json::object());

  // The spans so far. Spans still open (a step that threw before its end) are closed at
  // the time of the call and marked "incomplete": true, so a failed config still shows
  // where it stopped.
  TraceSpanSet span_set() const;
  // Writes this probe's spans alone; use write_chrome_trace to merge configs or ranks.
  void write_trace(const std::string& path) const;

  // Now on the trace clock, in µs.
  static double now_us();

 private:
  struct OpenSpan {
    TraceSpan span;
    bool open = false;
  };
  void open(OpenSpan& slot, std::string name, const char* category, nlohmann::json args);
  void close(OpenSpan& slot);

  int rank_;
  TraceSpanSet set_;
  OpenSpan run_, step_, phase_;
  int step_number_ = 0;
  bool step_measured_ = false;
  std::map<std::string, int> device_tracks_;  // track name -> tid
};

}  // namespace gpubench
