#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/profile/cupti_activity_api.h"
#include "harness/profile/cupti_records.h"
#include "harness/profile/cupti_summary.h"
#include "harness/profile/probe.h"

namespace gpubench {

// How the records' clock maps to std::chrono::steady_clock (the wall timers' and trace
// probes' clock): steady_ns = cupti_ns - cupti_minus_steady_ns. Phase and step windows
// are taken with CuptiActivityApi::timestamp_ns (cuptiGetTimestamp), which CUPTI defines
// as the clock of its records, so attribution needs no conversion; this pair is only for
// placing records next to host tracks. CUPTI's Linux default is CLOCK_REALTIME, which NTP
// may slew: drift_ns (offset at run_end minus offset at run_begin) says by how much.
struct CuptiClockAlignment {
  std::int64_t cupti_minus_steady_ns = 0;
  std::int64_t drift_ns = 0;
};

// Probe that records GPU kernels, copies, memsets and runtime and driver calls with the
// CUPTI Activity API and summarises them per measured step and phase.
//
// It never throws and never stops a run: if CUPTI cannot start (no driver, another
// profiler holds CUPTI's one subscriber slot, a build without CUPTI) it turns itself off
// and write_result says why. CUPTI is enabled at run_begin, so its start-up cost falls in
// the warm-up steps, and detached (cuptiFinalize) at run_end: a left-attached CUPTI slows
// training. Detaching is safe there because the Trainer has synchronised the device and
// the records have been flushed, which is what CUPTI asks of a direct cuptiFinalize.
class CuptiCollector final : public Probe {
 public:
  enum class State { Idle, Collecting, Done, Unavailable, Failed };

  CuptiCollector();  // the build's backend: make_cupti_activity_api()
  explicit CuptiCollector(CuptiBackend backend);
  ~CuptiCollector() override;
  CuptiCollector(const CuptiCollector&) = delete;
  CuptiCollector& operator=(const CuptiCollector&) = delete;

  std::string name() const override { return "cupti"; }
  void run_begin(const std::string& config_id) override;
  void run_end() override;
  void step_begin(int step, bool measured) override;
  void step_end(int step, bool measured) override;
  void phase_begin(Phase phase) override;
  void phase_end(Phase phase) override;
  // result["cupti"]: {"status":"ok", ...summary} or {"status":"unavailable"|"failed","reason":...}
  void write_result(nlohmann::json& result) const override;

  // Forced flush: CUPTI hands over every buffer and the records are kept. It does not
  // synchronise the device; the collector's own flushes (end of each measured window,
  // pause, run_end) synchronise it first, so no in-flight activity comes back incomplete.
  void flush();

  // --overhead: stops CUPTI producing records (false), keeping the subscription and what
  // was recorded, and starts it again (true), so steps run at a lower instrumentation
  // level pay nothing for CUPTI. Pausing flushes. No-op unless collecting.
  void set_active(bool active);

  State state() const { return state_; }
  const std::string& reason() const { return reason_; }  // why Unavailable or Failed
  // Every record delivered so far (warm-up included), for trace writers' device tracks.
  const CuptiRecords& records() const { return records_; }
  const std::vector<StepWindow>& step_windows() const { return steps_; }
  const std::vector<PhaseWindow>& phase_windows() const { return phases_; }
  const CuptiClockAlignment& clock_alignment() const { return clock_; }
  CuptiSummary summary() const { return summarize_cupti(records_, steps_, phases_); }

 private:
  // cudaDeviceSynchronize before a flush between steps; false (collector failed) if it failed.
  bool synchronize_for_flush();
  void start();
  void stop() noexcept;  // disables what was enabled, then unsubscribes and detaches
  void turn_off(State state, std::string reason) noexcept;
  std::int64_t clock_offset_ns();
  template <class Action>
  void guarded(Action&& action) noexcept;

  std::unique_ptr<CuptiActivityApi> api_;
  std::string backend_reason_;
  State state_ = State::Idle;
  std::string reason_;
  bool subscribed_ = false;
  std::vector<CuptiActivityKind> enabled_;

  CuptiRecords records_;
  std::vector<StepWindow> steps_;
  std::vector<PhaseWindow> phases_;
  CuptiClockAlignment clock_;
  bool in_measured_step_ = false, window_open_ = false;
  bool paused_ = false;
  StepWindow current_step_;
  std::uint64_t phase_start_ns_ = 0;
};

}  // namespace gpubench
