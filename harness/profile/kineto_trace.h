#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "harness/profile/trace_probe.h"

namespace gpubench {

// Who wrote a per-rank trace: what PyTorch's profiler records in "distributedInfo".
struct KinetoTraceOrigin {
  int rank = 0;
  int world_size = 1;
  std::string backend = "none";  // "gloo", "nccl", or "none" for one process
  int pid = 0;                   // the OS process id of the rank (host events' pid)
};

// One config on one rank as a Chrome trace in the shape PyTorch's profiler (Kineto) writes
// and Meta's Holistic Trace Analysis reads (hta/common/trace_parser.py):
//  - "distributedInfo": {backend, rank, world_size} ahead of "traceEvents" (HTA finds the
//    rank with the regex `"rank":\s+(\d+)`, first match in the file);
//  - host spans (run, steps, phases) as cat "user_annotation" on pid = the OS pid and
//    tid = thread index + 1 (HTA reads pid 0 or tid 0 as a GPU);
//  - device spans as Kineto's kernels, copies and memsets: cat "kernel", "gpu_memcpy"
//    ("Memcpy HtoD (Pinned -> Device)"), "gpu_memset" ("Memset (Device)"), on pid = device
//    index and tid = stream, with args stream, device, correlation (HTA keys GPU activity
//    on args.stream and the copy/compute split on the name).
// Times stay microseconds on the steady clock.
nlohmann::json kineto_trace_json(const TraceSpanSet& set, const KinetoTraceOrigin& origin);

// DIR/<config id, '/' -> '_'>/rank-<R>.json: one folder per config, which is what
// HTA's TraceAnalysis(trace_dir=...) takes (it reads every .json in it as one rank's trace).
std::string kineto_trace_path(const std::string& dir, const std::string& config_id, int rank);

// Writes kineto_trace_json to kineto_trace_path atomically, creating the config's folder.
// Throws std::runtime_error naming the path if it cannot be written.
void write_kineto_trace(const std::string& dir, const TraceSpanSet& set, const KinetoTraceOrigin& origin);

// A Chrome-trace metadata event ("ph": "M": process and thread names, sort indices).
nlohmann::json trace_metadata_event(const char* what, int pid, int tid, nlohmann::json args);

}  // namespace gpubench
