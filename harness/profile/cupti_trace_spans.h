#pragma once
#include <cstddef>

#include "harness/profile/cupti_collector.h"
#include "harness/profile/trace_probe.h"

namespace gpubench {

struct DeviceSpanCount {
  std::size_t added = 0;
  std::size_t left_out = 0;  // over the cap, or never timed by CUPTI
};

// Puts CUPTI's kernels, copies and memsets on the trace's device tracks, one track per
// GPU stream ("GPU 0 · stream 7", as Nsight Systems draws them), moved onto the trace's
// steady clock with the collector's alignment. At most `max_spans` (earliest first): a
// long run launches hundreds of thousands of kernels and a trace viewer chokes on them.
DeviceSpanCount add_cupti_device_spans(TraceProbe& trace, const CuptiRecords& records,
                                       const CuptiClockAlignment& clock, std::size_t max_spans = 200000);

}  // namespace gpubench
