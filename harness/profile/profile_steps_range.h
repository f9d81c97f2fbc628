#pragma once
#include <string>

#include "harness/profile/probe.h"

namespace gpubench {

// Inclusive range of steps to capture, from `--profile-steps A:B`. Step numbers are the
// `step` argument the Trainer passes to Probe::step_begin/step_end.
struct ProfileSteps {
  int first = 0;
  int last = 0;
  std::string text() const { return std::to_string(first) + ":" + std::to_string(last); }
};

// Parses "A:B" (decimal, 0 <= A <= B). Throws UsageError naming the value and the
// expected form, e.g. "--profile-steps '5:2' is invalid: first step 5 is after last
// step 2; expected A:B with 0 <= A <= B".
ProfileSteps parse_profile_steps(const std::string& text);

// The name of the NVTX range around steps A..B (a registered string in the gpubench domain):
// `nsys profile --capture-range=nvtx --nvtx-capture=profile-steps@gpubench`.
inline constexpr const char* kProfileStepsRangeName = "profile-steps";

// Brackets steps A..B for a profiler's capture window, two ways:
//  - cudaProfilerStart/cudaProfilerStop, for `nsys profile --capture-range=cudaProfilerApi`
//    (and ncu); without a driver the start fails and the reason goes into the result;
//  - an NVTX range named "profile-steps" in the gpubench domain, for
//    `--capture-range=nvtx`, which works where CUDA's profiler API is not there (a CPU run).
// Never throws. Add it to the ProbeSet *first*: begin calls run in insertion order and end
// calls in reverse, so the capture encloses the other probes' step ranges (NVTX) and the
// start/stop cost falls outside the wall timer's step. A profiler captures the first window
// only, unless told to repeat (nsys: --capture-range-end=repeat; one window per config in
// a matrix run). Call from the thread that runs the steps (NVTX ranges are per thread).
class ProfileStepsRange final : public Probe {
 public:
  explicit ProfileStepsRange(ProfileSteps steps) : steps_(steps) {}

  std::string name() const override { return "profiler_range"; }
  void step_begin(int step, bool measured) override;
  void step_end(int step, bool measured) override;
  // Stops a capture still running (the run had fewer steps than B, or a step threw).
  void run_end() override;
  // Adds "profiler_range": {"steps": "A:B", "status": ..., "reason": ...,
  // "nvtx_capture": "profile-steps@gpubench"}. status is "started" (cudaProfilerStart
  // succeeded), "unavailable" (it failed: reason says why; the NVTX range was still
  // opened), or "not_reached" (the run never got to step A).
  void write_result(nlohmann::json& result) const override;

 private:
  void stop();
  void start_cuda_profiler();

  ProfileSteps steps_;
  enum class State { Waiting, Capturing, Stopped } state_ = State::Waiting;
  bool cuda_profiler_started_ = false;
  std::string reason_;       // why the start failed
  std::string stop_reason_;  // why the stop failed (capture may have run to the end)
};

}  // namespace gpubench
