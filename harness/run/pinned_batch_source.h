#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "harness/profile/probe.h"
#include "harness/run/batch_source.h"
#include "core/stats/summary.h"
#include "core/stats/summary_json.h"

namespace gpubench {

// Host-to-device copy statistics: the batch sources record each copy's bytes and its own
// duration (CUDA events around the copy on the stream that runs it); as a probe it knows
// which steps are measured and writes
//   result["h2d"] = {mode, timing, bytes_per_step, copies, warmup_copies,
//                    median_ms, p10_ms, p90_ms, copy_ms (summary), gb_per_s}
// gb_per_s = bytes_per_step / median_ms. What the step *waited* for the copy is the h2d
// phase (result["phases"]["h2d"]): for the pinned source the copy overlaps the previous
// step, so the phase can be far below median_ms; for the pageable source they agree.
// Header-only: it needs no CUDA and is unit-tested on every machine.
class H2dCopyStats final : public Probe {
 public:
  explicit H2dCopyStats(std::string mode) : mode_(std::move(mode)) {}

  std::string name() const override { return "h2d"; }
  void step_begin(int, bool measured) override { measuring_ = measured; }
  // Whether the step now running is measured (a source stamps each batch it hands out).
  bool measuring() const { return measuring_; }
  // A source whose copies finish after the step that used them (the pinned prefetch) hands
  // over a drain: run_end() calls it, so the last steps' copies are recorded too.
  void set_drain(std::function<void()> drain) { drain_ = std::move(drain); }
  void run_end() override {
    if (drain_) drain_();
  }

  // One batch copied: its bytes, the copy's duration, and whether it belongs to a measured step.
  void record(std::uint64_t bytes, double copy_ms, bool measured) {
    if (!measured) {
      ++warmup_copies_;
      return;
    }
    bytes_.push_back(static_cast<double>(bytes));
    copy_ms_.push_back(copy_ms);
  }
  std::size_t copies() const { return copy_ms_.size(); }
  std::size_t warmup_copies() const { return warmup_copies_; }

  void write_result(nlohmann::json& result) const override {
    nlohmann::json h2d = {{"mode", mode_},
                          {"timing", "CUDA events around each batch's copy, on the stream that runs it"},
                          {"copies", copy_ms_.size()},
                          {"warmup_copies", warmup_copies_}};
    if (!copy_ms_.empty()) {
      const Summary ms = summarize(copy_ms_);
      const double bytes = percentile(bytes_, 0.5);
      h2d["bytes_per_step"] = static_cast<std::uint64_t>(bytes);
      h2d["median_ms"] = ms.median;
      h2d["p10_ms"] = ms.p10;
      h2d["p90_ms"] = ms.p90;
      h2d["copy_ms"] = to_json(ms);
      h2d["gb_per_s"] = ms.median > 0 ? bytes / (ms.median * 1e-3) / 1e9 : 0.0;
    }
    result["h2d"] = h2d;
  }

 private:
  std::string mode_;
  bool measuring_ = false;
  std::function<void()> drain_;
  std::vector<double> bytes_, copy_ms_;
  std::size_t warmup_copies_ = 0;
};

// Pinned host memory with prefetch, what PyTorch's DataLoader(pin_memory=True) plus
// .to(device, non_blocking=True) gives Python users (LibTorch's DataLoader has no
// pin_memory):
//  - `host` collates batches in ordinary memory (a LoaderBatchSource on the CPU: same
//    sampler and order as the pageable path); each batch is copied into one of two reused
//    pinned (page-locked) buffers, the copy PyTorch's pin-memory thread also makes;
//  - the host-to-device copy is issued non_blocking on a side stream, bracketed by CUDA
//    events, into device memory allocated on that stream;
//  - next() returns batch N and issues batch N+1's copy, so that copy runs while step N
//    computes (double buffering);
//  - to_device(N) makes the compute stream wait on N's copy event (no host wait) and
//    record_stream()s N's device tensors on the compute stream, so the caching allocator
//    cannot hand their memory to the next copy while step N still reads it. A pinned
//    buffer is refilled only after its previous copy's event has completed.
// At most one batch may be outstanding: next(), to_device(), next(), ...
class PinnedBatchSource final : public BatchSource {
 public:
  PinnedBatchSource(std::unique_ptr<BatchSource> host, torch::Device device,
                    std::shared_ptr<H2dCopyStats> stats = nullptr);
  ~PinnedBatchSource() override;
  Batch next() override;
  Batch to_device(Batch host_batch) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Times another source's to_device() with CUDA events on the current stream of `device`
// and records it in `stats`: the pageable path (a blocking copy from ordinary memory).
class CopyTimedBatchSource final : public BatchSource {
 public:
  CopyTimedBatchSource(std::unique_ptr<BatchSource> inner, torch::Device device, std::shared_ptr<H2dCopyStats> stats);
  ~CopyTimedBatchSource() override;
  Batch next() override;
  Batch to_device(Batch host_batch) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpubench
