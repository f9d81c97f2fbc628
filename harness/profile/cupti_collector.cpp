#include "harness/profile/cupti_collector.h"

#include <chrono>
#include <exception>
#include <utility>

namespace gpubench {
namespace {

// Kernels for time, copies and memsets for bandwidth, runtime and driver calls for
// correlation (the libraries' kernels are launched by driver calls).
constexpr CuptiActivityKind kKinds[] = {CuptiActivityKind::ConcurrentKernel, CuptiActivityKind::Memcpy,
                                        CuptiActivityKind::Memset, CuptiActivityKind::Runtime,
                                        CuptiActivityKind::Driver};

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

CuptiCollector::CuptiCollector() : CuptiCollector(make_cupti_activity_api()) {}

CuptiCollector::CuptiCollector(CuptiBackend backend)
    : api_(std::move(backend.api)), backend_reason_(std::move(backend.unavailable_reason)) {
  if (!api_) {
    state_ = State::Unavailable;
    reason_ = backend_reason_.empty() ? "no CUPTI backend" : backend_reason_;
  }
}

// A run that ended by an exception may skip run_end: never leave CUPTI attached.
CuptiCollector::~CuptiCollector() { stop(); }

// Probe calls must not throw into the Trainer: any failure turns the probe off instead.
template <class Action>
void CuptiCollector::guarded(Action&& action) noexcept {
  try {
    action();
  } catch (const std::exception& e) {
    turn_off(state_ == State::Collecting ? State::Failed : State::Unavailable,
             std::string("CUPTI collector: ") + e.what());
  } catch (...) {
    turn_off(state_ == State::Collecting ? State::Failed : State::Unavailable, "CUPTI collector: unknown exception");
  }
}

void CuptiCollector::run_begin(const std::string&) {
  stop();  // a previous run that never reached run_end
  records_.clear();
  steps_.clear();
  phases_.clear();
  clock_ = {};
  in_measured_step_ = window_open_ = paused_ = false;
  if (!api_) return;  // stays Unavailable with the backend's reason
  state_ = State::Idle;
  reason_.clear();
  guarded([&] { start(); });
}

void CuptiCollector::start() {
  CuptiCall call = api_->subscribe();
  if (!call.ok()) {
    // Touch nothing else: if another profiler holds CUPTI, it is that tool's session.
    turn_off(State::Unavailable, call.message);
    return;
  }
  subscribed_ = true;
  call = api_->register_buffer_callbacks();
  for (CuptiActivityKind kind : kKinds) {
    if (!call.ok()) break;
    call = api_->enable(kind);
    if (call.ok()) enabled_.push_back(kind);
  }
  if (!call.ok()) {
    turn_off(State::Unavailable, call.message);
    return;
  }
  clock_.cupti_minus_steady_ns = clock_offset_ns();
  state_ = State::Collecting;
}

void CuptiCollector::run_end() {
  if (state_ != State::Collecting) return;
  guarded([&] {
    // Let the device finish (a prefetch copy may still run on its side stream), stop
    // producing records, then collect everything CUPTI still holds.
    if (const CuptiCall synced = api_->synchronize_device(); !synced.ok()) {
      turn_off(State::Failed, synced.message);
      return;
    }
    for (CuptiActivityKind kind : enabled_) api_->disable(kind);
    enabled_.clear();
    flush();
    if (state_ != State::Collecting) return;  // flush failed and turned the probe off
    clock_.drift_ns = clock_offset_ns() - clock_.cupti_minus_steady_ns;
    stop();
    state_ = State::Done;
  });
}

void CuptiCollector::set_active(bool active) {
  if (state_ != State::Collecting || active == !paused_) return;
  guarded([&] {
    if (!active) {
      if (!synchronize_for_flush()) return;
      for (CuptiActivityKind kind : enabled_) api_->disable(kind);
      enabled_.clear();
      paused_ = true;
      flush();
      return;
    }
    paused_ = false;
    for (CuptiActivityKind kind : kKinds) {
      const CuptiCall call = api_->enable(kind);
      if (!call.ok()) {
        turn_off(State::Failed, call.message);
        return;
      }
      enabled_.push_back(kind);
    }
  });
}

// A forced flush hands over CUPTI's buffers as they are: an activity still running (the
// pinned prefetch copy on its side stream, a kernel the CPU ran ahead of) comes back as
// an incomplete record. Between steps the device is first let finish, as run_end does.
bool CuptiCollector::synchronize_for_flush() {
  if (const CuptiCall synced = api_->synchronize_device(); !synced.ok()) {
    turn_off(State::Failed, synced.message);
    return false;
  }
  return true;
}

void CuptiCollector::flush() {
  if (state_ != State::Collecting) return;
  guarded([&] {
    const CuptiCall call = api_->flush_all();
    if (!call.ok()) {
      turn_off(State::Failed, call.message);
      return;
    }
    records_.append(api_->take_records());
  });
}

void CuptiCollector::step_begin(int step, bool measured) {
  if (state_ != State::Collecting) return;
  if (!measured) {
    // The first unmeasured step after measured ones closes a measured window.
    if (window_open_) {
      window_open_ = false;
      if (synchronize_for_flush()) flush();
    }
    return;
  }
  guarded([&] {
    current_step_ = {step, api_->timestamp_ns(), 0};
    in_measured_step_ = window_open_ = true;
  });
}

void CuptiCollector::step_end(int, bool) {
  if (state_ != State::Collecting || !in_measured_step_) return;
  guarded([&] {
    current_step_.end_ns = api_->timestamp_ns();
    steps_.push_back(current_step_);
    in_measured_step_ = false;
  });
}

void CuptiCollector::phase_begin(Phase) {
  if (state_ != State::Collecting || !in_measured_step_) return;
  guarded([&] { phase_start_ns_ = api_->timestamp_ns(); });
}

void CuptiCollector::phase_end(Phase phase) {
  if (state_ != State::Collecting || !in_measured_step_) return;
  guarded([&] { phases_.push_back({current_step_.step, phase, phase_start_ns_, api_->timestamp_ns()}); });
}

void CuptiCollector::write_result(nlohmann::json& result) const {
  try {
    switch (state_) {
      case State::Unavailable: result["cupti"] = {{"status", "unavailable"}, {"reason", reason_}}; return;
      case State::Failed: result["cupti"] = {{"status", "failed"}, {"reason", reason_}}; return;
      case State::Idle:
        result["cupti"] = {{"status", "unavailable"}, {"reason", "CUPTI collection did not run (no run_begin)"}};
        return;
      case State::Collecting:
      case State::Done: break;
    }
    nlohmann::json cupti = to_json(summary());
    cupti["status"] = "ok";
    // Written before run_end, the records CUPTI still holds are missing.
    if (state_ == State::Collecting) cupti["partial"] = true;
    cupti["clock"] = {{"source", "cuptiGetTimestamp"},
                      {"cupti_minus_steady_ns", clock_.cupti_minus_steady_ns},
                      {"drift_ns", clock_.drift_ns}};
    result["cupti"] = std::move(cupti);
  } catch (const std::exception& e) {
    result["cupti"] = {{"status", "failed"}, {"reason", std::string("CUPTI summary: ") + e.what()}};
  }
}

void CuptiCollector::stop() noexcept {
  if (!api_) return;
  try {
    for (CuptiActivityKind kind : enabled_) api_->disable(kind);
    enabled_.clear();
    if (subscribed_) {
      subscribed_ = false;
      api_->finalize();
    }
  } catch (...) {
    // Nothing left to do: CUPTI refused to detach and the run goes on without it.
  }
  in_measured_step_ = window_open_ = false;
}

void CuptiCollector::turn_off(State state, std::string reason) noexcept {
  state_ = state;
  reason_ = std::move(reason);
  stop();
}

// Midpoint of two steady_clock reads around one CUPTI read, to halve the read's own cost.
std::int64_t CuptiCollector::clock_offset_ns() {
  const std::int64_t before = steady_ns();
  const auto cupti = static_cast<std::int64_t>(api_->timestamp_ns());
  const std::int64_t after = steady_ns();
  return cupti - (before + (after - before) / 2);
}

}  // namespace gpubench
