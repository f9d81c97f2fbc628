#pragma once
#include <string>

#include "profile/probe.h"

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

// Brackets steps A..B with cudaProfilerStart/cudaProfilerStop so that
// `nsys profile --capture-range=cudaProfilerApi` records only the steady state.
// Never throws: without a driver (or a build without the CUDA runtime) the start fails
// and the reason goes into the result. Add it to the ProbeSet *first*: begin calls run in
// insertion order and end calls in reverse, so the capture encloses the other probes'
// step ranges (NVTX) and the start/stop cost falls outside the wall timer's step.
// nsys captures the first start/stop pair only, unless run with --capture-range-end=repeat
// (one range per config in a matrix run).
class CudaProfilerRange final : public Probe {
 public:
  explicit CudaProfilerRange(ProfileSteps steps) : steps_(steps) {}

  std::string name() const override { return "profiler_range"; }
  void step_begin(int step, bool measured) override;
  void step_end(int step, bool measured) override;
  // Stops a capture still running (the run had fewer steps than B, or a step threw).
  void run_end() override;
  // Adds "profiler_range": {"steps": "A:B", "status": ..., "reason": ...}. status is
  // "started" (cudaProfilerStart succeeded), "unavailable" (it failed: reason says why),
  // or "not_reached" (the run never got to step A).
  void write_result(nlohmann::json& result) const override;

 private:
  void stop();

  ProfileSteps steps_;
  enum class State { Waiting, Capturing, Stopped, Unavailable } state_ = State::Waiting;
  std::string reason_;       // why the start failed
  std::string stop_reason_;  // why the stop failed (capture may have run to the end)
};

}  // namespace gpubench
