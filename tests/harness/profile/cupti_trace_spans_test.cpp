#include "harness/profile/cupti_trace_spans.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

// Synthetic CUPTI records on a clock 5 s ahead of steady_clock.
constexpr std::int64_t kOffsetNs = 5'000'000'000;

CuptiRecords two_streams() {
  CuptiRecords r;
  r.kernels.push_back({"gemm", kOffsetNs + 2'000'000, kOffsetNs + 2'300'000, 0, 7, 11});
  r.kernels.push_back({"relu", kOffsetNs + 2'400'000, kOffsetNs + 2'450'000, 0, 7, 12});
  r.memcpys.push_back({MemcpyKind::HostToDevice, 1'000'000, kOffsetNs + 1'000'000, kOffsetNs + 1'050'000, 0, 13, 10, true});
  r.memsets.push_back({4096, kOffsetNs + 1'900'000, kOffsetNs + 1'901'000, 0, 7, 9});
  return r;
}

std::vector<TraceSpan> device_spans(const TraceProbe& probe) {
  std::vector<TraceSpan> out;
  for (const auto& span : probe.span_set().spans)
    if (span.category == "device") out.push_back(span);
  return out;
}

TEST(CuptiTraceSpans, KernelsCopiesAndMemsetsLandOnTheirStreamsTrackOnTheTraceClock) {
  TraceProbe probe;
  const DeviceSpanCount count = add_cupti_device_spans(probe, two_streams(), {kOffsetNs, 0});
  EXPECT_EQ(count.added, 4u);
  EXPECT_EQ(count.left_out, 0u);
  const auto spans = device_spans(probe);
  ASSERT_EQ(spans.size(), 4u);
  // Earliest first: the copy (1 ms), the memset, the kernels.
  EXPECT_EQ(spans[0].name, "memcpy h2d");
  EXPECT_DOUBLE_EQ(spans[0].start_us, 1000.0) << "CUPTI time minus the offset, in us";
  EXPECT_DOUBLE_EQ(spans[0].duration_us, 50.0);
  EXPECT_EQ(spans[0].args["bytes"], 1'000'000);
  EXPECT_DOUBLE_EQ(spans[0].args["gb_per_s"].get<double>(), 20.0);
  EXPECT_EQ(spans[0].args["pinned_host"], true);
  EXPECT_EQ(spans[1].name, "memset");
  EXPECT_EQ(spans[2].name, "gemm");
  EXPECT_DOUBLE_EQ(spans[2].duration_us, 300.0);
  EXPECT_EQ(spans[2].args["correlation_id"], 11);
  const auto names = probe.span_set().thread_names;
  EXPECT_EQ(names.at(spans[0].tid), "GPU 0 \u00b7 stream 13");
  EXPECT_EQ(names.at(spans[2].tid), "GPU 0 \u00b7 stream 7");
  EXPECT_EQ(spans[1].tid, spans[2].tid) << "one track per stream";
  EXPECT_NE(spans[0].tid, spans[2].tid);
}

TEST(CuptiTraceSpans, UntimedRecordsAndThoseOverTheCapAreCountedNotDrawn) {
  CuptiRecords records = two_streams();
  records.kernels.push_back({"untimed", 0, 0, 0, 7, 14});
  TraceProbe probe;
  const DeviceSpanCount count = add_cupti_device_spans(probe, records, {kOffsetNs, 0}, 2);
  EXPECT_EQ(count.added, 2u);
  EXPECT_EQ(count.left_out, 3u);
  const auto spans = device_spans(probe);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].name, "memcpy h2d") << "the cap keeps the earliest";
  EXPECT_EQ(spans[1].name, "memset");
}

}  // namespace
}  // namespace gpubench
