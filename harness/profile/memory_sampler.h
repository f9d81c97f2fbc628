#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "harness/profile/probe.h"

namespace gpubench {

// Returns a JSON snapshot of the device allocator (e.g. the CUDA caching allocator's
// allocated/reserved bytes); called at the end of every step.
using DeviceMemoryStats = std::function<nlohmann::json()>;

// Samples memory at each step_end, warm-up steps included (allocator growth during
// warm-up is worth seeing). Adds to result["memory"], keeping keys other probes put there:
//   rss_bytes_per_step      host RSS after each step (/proc/self/statm)
//   step_per_sample         the step number of each sample
//   measured_per_sample     false for warm-up steps
//   rss_bytes_at_run_begin  baseline before the first step
//   rss_bytes_max_sampled   largest sample: this run's peak as far as steps show it
//   host_peak_rss_bytes     getrusage peak: for the whole process up to this run's end,
//                           so in a matrix run it includes earlier configs
//   host_peak_rss_bytes_training  the same peak read when training ended: the steps' own
//                           high-water mark (inside a step, where samples cannot see),
//                           before the checkpoint round trip's copies of model and optimizer
//   device_per_step         the DeviceMemoryStats output per step (only with a callback);
//                           a callback that throws is recorded as {"error": message}
// Cost per step: one small /proc read (~10 µs) plus the callback, outside any phase.
class MemorySampler final : public Probe {
 public:
  explicit MemorySampler(DeviceMemoryStats device_stats = nullptr) : device_stats_(std::move(device_stats)) {}

  std::string name() const override { return "memory"; }
  void run_begin(const std::string& config_id) override;
  void step_end(int step, bool measured) override;
  void run_end() override;
  void write_result(nlohmann::json& result) const override;

  const std::vector<std::uint64_t>& rss_bytes_per_step() const { return rss_bytes_; }

 private:
  DeviceMemoryStats device_stats_;
  std::uint64_t rss_at_begin_ = 0;
  std::uint64_t peak_at_end_ = 0;  // 0 until run_end; write_result then reads it live
  std::vector<std::uint64_t> rss_bytes_;
  std::vector<int> steps_;
  std::vector<bool> measured_;
  nlohmann::json device_ = nlohmann::json::array();
};

}  // namespace gpubench
