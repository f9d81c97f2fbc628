#include "harness/profile/cupti_trace_spans.h"

#include <algorithm>
#include <string>
#include <vector>

namespace gpubench {
namespace {

// One device activity, whatever its kind, for sorting by start before the cap applies.
struct DeviceSpan {
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t device = 0, stream = 0;
  std::string name;
  nlohmann::json args;
};

std::vector<DeviceSpan> timed_spans(const CuptiRecords& records, std::size_t& untimed) {
  std::vector<DeviceSpan> spans;
  const auto keep = [&](std::uint64_t start, std::uint64_t end, std::uint32_t device, std::uint32_t stream,
                        std::string name, nlohmann::json args) {
    if (!has_timing(start, end) || end < start) {
      ++untimed;
      return;
    }
    spans.push_back({start, end, device, stream, std::move(name), std::move(args)});
  };
  for (const auto& k : records.kernels)
    keep(k.start_ns, k.end_ns, k.device, k.stream, k.name, {{"correlation_id", k.correlation_id}});
  for (const auto& m : records.memcpys) {
    const double seconds = static_cast<double>(m.end_ns - m.start_ns) * 1e-9;
    nlohmann::json args = {{"bytes", m.bytes}, {"pinned_host", m.pinned_host}, {"correlation_id", m.correlation_id}};
    if (seconds > 0 && m.end_ns > m.start_ns) args["gb_per_s"] = static_cast<double>(m.bytes) / seconds * 1e-9;
    keep(m.start_ns, m.end_ns, m.device, m.stream, std::string("memcpy ") + memcpy_kind_name(m.kind), std::move(args));
  }
  for (const auto& m : records.memsets)
    keep(m.start_ns, m.end_ns, m.device, m.stream, "memset", {{"bytes", m.bytes}, {"correlation_id", m.correlation_id}});
  std::sort(spans.begin(), spans.end(), [](const DeviceSpan& a, const DeviceSpan& b) { return a.start_ns < b.start_ns; });
  return spans;
}

}  // namespace

DeviceSpanCount add_cupti_device_spans(TraceProbe& trace, const CuptiRecords& records,
                                       const CuptiClockAlignment& clock, std::size_t max_spans) {
  DeviceSpanCount count;
  const std::vector<DeviceSpan> spans = timed_spans(records, count.left_out);
  for (const DeviceSpan& span : spans) {
    if (count.added == max_spans) {
      ++count.left_out;
      continue;
    }
    const double start_us =
        static_cast<double>(static_cast<std::int64_t>(span.start_ns) - clock.cupti_minus_steady_ns) / 1000.0;
    const double duration_us = static_cast<double>(span.end_ns - span.start_ns) / 1000.0;
    nlohmann::json args = span.args;  // where it ran, for readers that key on it (HTA: args.stream)
    args["device"] = span.device;
    args["stream"] = span.stream;
    trace.add_device_span("GPU " + std::to_string(span.device) + " \u00b7 stream " + std::to_string(span.stream),
                          span.name, start_us, duration_us, std::move(args));
    ++count.added;
  }
  return count;
}

}  // namespace gpubench
