#pragma once
// Reader for the log written by the test NVTX injection library (nvtx_recorder_injection.cpp):
// one event per line, "<pid>\t<tid>\t<event>\t<domain>\t<message>". Header-only so an
// end-to-end test of the real binary (tests/cli/...) can include it too.
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gpubench::test_support {

struct NvtxLogEvent {
  long pid = 0;
  long tid = 0;
  std::string event;  // init | domain_create | domain_destroy | push | pop | mark
  std::string domain;
  std::string message;
};

inline std::vector<NvtxLogEvent> read_nvtx_log(const std::string& path) {
  std::vector<NvtxLogEvent> events;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (int i = 0; i < 4; ++i) {  // the message is last and may hold anything but '\n'
      const auto tab = line.find('\t', start);
      if (tab == std::string::npos) break;
      fields.push_back(line.substr(start, tab - start));
      start = tab + 1;
    }
    if (fields.size() != 4) continue;  // not a record (should not happen)
    fields.push_back(line.substr(start));
    events.push_back({std::stol(fields[0]), std::stol(fields[1]), fields[2], fields[3], fields[4]});
  }
  return events;
}

// The push/pop events of one domain, as ("push"|"pop", message) pairs in log order.
inline std::vector<std::pair<std::string, std::string>> ranges_in_domain(const std::vector<NvtxLogEvent>& events,
                                                                         const std::string& domain) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : events)
    if (e.domain == domain && (e.event == "push" || e.event == "pop")) out.emplace_back(e.event, e.message);
  return out;
}

// True if, on every (pid, tid), each pop closes the most recent open push of the same
// domain and nothing is left open: what Nsight needs to draw proper nesting.
inline bool ranges_balanced(const std::vector<NvtxLogEvent>& events) {
  std::map<std::pair<std::pair<long, long>, std::string>, std::vector<std::string>> stacks;
  for (const auto& e : events) {
    auto& stack = stacks[{{e.pid, e.tid}, e.domain}];
    if (e.event == "push") stack.push_back(e.message);
    if (e.event == "pop") {
      if (stack.empty() || stack.back() != e.message) return false;
      stack.pop_back();
    }
  }
  for (const auto& [key, stack] : stacks)
    if (!stack.empty()) return false;
  return true;
}

}  // namespace gpubench::test_support
