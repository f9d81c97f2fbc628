#pragma once
#include <memory>

#include "harness/profile/device_phase_timer.h"

namespace gpubench {

// EventClock on CUDA events (timing enabled) recorded on the current stream of `device`
// when each mark is made: the stream every phase's work is queued on (the pinned source's
// copy runs on its own stream and is joined to this one in the H2D phase, so H2D's span is
// the copy time the step waits for). Events are pooled and reused.
std::unique_ptr<EventClock> make_cuda_event_clock(int device);

}  // namespace gpubench
