#include "harness/profile/kineto_trace.h"

#include <filesystem>
#include <set>

#include "core/io/atomic_file.h"
#include "core/io/json_text.h"

namespace gpubench {
namespace {

// A CUPTI span's Kineto category and name: copies and memsets by their names (HTA tells
// memory from compute by "^Memcpy|^Memset"), kernels as they are.
std::pair<std::string, std::string> device_category_and_name(const TraceSpan& span) {
  if (span.name.rfind("memcpy ", 0) == 0) {
    const std::string kind = span.name.substr(7);  // HtoD, DtoH, DtoD, ...
    const bool pinned = span.args.value("pinned_host", false);
    std::string name = "Memcpy " + kind;
    if (kind == "HtoD") name += pinned ? " (Pinned -> Device)" : " (Pageable -> Device)";
    if (kind == "DtoH") name += pinned ? " (Device -> Pinned)" : " (Device -> Pageable)";
    if (kind == "DtoD") name += " (Device -> Device)";
    return {"gpu_memcpy", name};
  }
  if (span.name == "memset") return {"gpu_memset", "Memset (Device)"};
  return {"kernel", span.name};
}

nlohmann::json device_event(const TraceSpan& span) {
  const auto [category, name] = device_category_and_name(span);
  const int device = span.args.value("device", 0);
  const int stream = span.args.value("stream", 0);
  nlohmann::json args = span.args;
  args["device"] = device;
  args["stream"] = stream;
  if (args.contains("correlation_id")) args["correlation"] = args["correlation_id"];
  return {{"ph", "X"}, {"cat", category}, {"name", name}, {"pid", device}, {"tid", stream},
          {"ts", span.start_us}, {"dur", span.duration_us}, {"args", std::move(args)}};
}

}  // namespace

nlohmann::json kineto_trace_json(const TraceSpanSet& set, const KinetoTraceOrigin& origin) {
  nlohmann::json events = nlohmann::json::array();
  events.push_back(trace_metadata_event("process_name", origin.pid, 0,
                            {{"name", "gpubench rank " + std::to_string(origin.rank) + " \u00b7 " + set.config_id}}));
  std::set<int> devices;
  for (const auto& span : set.spans) {
    if (span.category == "device") {
      events.push_back(device_event(span));
      devices.insert(span.args.value("device", 0));
      continue;
    }
    nlohmann::json args = span.args;
    args["gpubench_category"] = span.category;  // run, step or phase
    events.push_back({{"ph", "X"}, {"cat", "user_annotation"}, {"name", span.name}, {"pid", origin.pid},
                      {"tid", span.tid + 1}, {"ts", span.start_us}, {"dur", span.duration_us}, {"args", std::move(args)}});
  }
  for (int device : devices) events.push_back(trace_metadata_event("process_name", device, 0, {{"name", "GPU " + std::to_string(device)}}));
  return {{"schemaVersion", 1},
          {"distributedInfo", {{"backend", origin.backend}, {"rank", origin.rank}, {"world_size", origin.world_size}}},
          {"traceEvents", std::move(events)},
          {"displayTimeUnit", "ms"},
          {"otherData", {{"generator", "gpubench"}, {"config_id", set.config_id},
                         {"clock", "steady_clock (CLOCK_MONOTONIC), microseconds"}}}};
}

std::string kineto_trace_path(const std::string& dir, const std::string& config_id, int rank) {
  std::string folder = config_id;
  for (char& c : folder)
    if (c == '/') c = '_';
  return (std::filesystem::path(dir) / folder / ("rank-" + std::to_string(rank) + ".json")).string();
}

void write_kineto_trace(const std::string& dir, const TraceSpanSet& set, const KinetoTraceOrigin& origin) {
  const std::string path = kineto_trace_path(dir, set.config_id, origin.rank);
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
  if (error) throw std::runtime_error("cannot create the folder of " + path + ": " + error.message());
  // Indented: HTA's rank regex wants a blank after the colon ("rank": 0); keys are sorted,
  // so distributedInfo comes before traceEvents.
  write_file_atomically(path, json_text(kineto_trace_json(set, origin), 1) + "\n");
}

nlohmann::json trace_metadata_event(const char* what, int pid, int tid, nlohmann::json args) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

}  // namespace gpubench
