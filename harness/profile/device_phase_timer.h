#pragma once
#include <array>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "harness/profile/probe.h"

namespace gpubench {

// Marks on the device's timeline (CUDA events on the stream the step runs on; a fake in
// the tests). `record` costs no wait; a mark's time can be read once the device passed it.
class EventClock {
 public:
  using Mark = std::size_t;
  virtual ~EventClock() = default;
  virtual Mark record() = 0;
  virtual bool passed(Mark mark) = 0;  // non-blocking
  virtual void wait(Mark mark) = 0;
  virtual double elapsed_ms(Mark from, Mark to) = 0;  // both passed
  virtual void release(Mark mark) = 0;                // may be reused by a later record
};

// Each measured step's phases on the device's timeline (DESIGN.md, "Measuring on a GPU as
// a real loop runs"): a mark at every step and phase boundary, recorded as the host queues
// the step, so that no phase waits for the device. A phase's device time is the span
// between its two marks: its kernels and copies, plus any time the device stalled waiting
// for the host inside it (a data phase the GPU waited through shows its full length, one
// hidden behind queued work shows about zero). The step's device span runs from its first
// mark to its last. Marks are read only once the device passed them: finished steps are
// collected at each step's start without waiting, the rest at run end.
// Result: "device_phases" (as "phases", shares of the device step's median) and
// "device_step_ms".
class DevicePhaseTimer final : public Probe {
 public:
  explicit DevicePhaseTimer(std::unique_ptr<EventClock> clock) : clock_(std::move(clock)) {}
  std::string name() const override { return "device_phase_timer"; }
  void step_begin(int step, bool measured) override;
  void step_end(int step, bool measured) override;
  void phase_begin(Phase phase) override;
  void phase_end(Phase phase) override;
  void run_end() override;
  void write_result(nlohmann::json& result) const override;

  const std::vector<double>& step_ms() const { return step_ms_; }
  const std::vector<double>& phase_ms(Phase phase) const { return phase_ms_[static_cast<std::size_t>(phase)]; }

 private:
  struct StepMarks {
    EventClock::Mark begin = 0, end = 0;
    std::vector<std::pair<Phase, std::pair<EventClock::Mark, EventClock::Mark>>> phases;
  };
  void collect(bool wait);

  std::unique_ptr<EventClock> clock_;
  bool in_measured_step_ = false;
  StepMarks current_;
  EventClock::Mark phase_begin_ = 0;
  std::deque<StepMarks> queued_;
  std::vector<double> step_ms_;
  std::array<std::vector<double>, kPhaseCount> phase_ms_;
};

}  // namespace gpubench
