#include "harness/profile/memory_sampler.h"

#include <algorithm>
#include <exception>

#include "harness/profile/host_memory.h"

namespace gpubench {

void MemorySampler::run_begin(const std::string&) { rss_at_begin_ = current_rss_bytes(); }

void MemorySampler::step_end(int step, bool measured) {
  rss_bytes_.push_back(current_rss_bytes());
  steps_.push_back(step);
  measured_.push_back(measured);
  if (!device_stats_) return;
  // A probe must not end the run: a failing stats query is data, not an error.
  try {
    device_.push_back(device_stats_());
  } catch (const std::exception& e) {
    device_.push_back({{"error", e.what()}});
  } catch (...) {
    device_.push_back({{"error", "unknown exception from the device memory callback"}});
  }
}

void MemorySampler::run_end() { peak_at_end_ = peak_rss_bytes(); }

void MemorySampler::write_result(nlohmann::json& result) const {
  // Merge, not assign: other probes (device allocator peaks, ...) may own keys here.
  nlohmann::json& memory = result["memory"];
  if (!memory.is_object()) memory = nlohmann::json::object();
  memory["rss_bytes_per_step"] = rss_bytes_;
  memory["step_per_sample"] = steps_;
  memory["measured_per_sample"] = measured_;
  memory["rss_bytes_at_run_begin"] = rss_at_begin_;
  const std::uint64_t max_sampled =
      rss_bytes_.empty() ? 0 : *std::max_element(rss_bytes_.begin(), rss_bytes_.end());
  memory["rss_bytes_max_sampled"] = max_sampled;
  // The kernel's high-water mark (getrusage) and /proc/self/statm read RSS counters that
  // are synced lazily, so the "peak" can lag a sample by a few pages; a peak below what
  // we saw is wrong by definition, so take the larger.
  const std::uint64_t peak = peak_at_end_ != 0 ? peak_at_end_ : peak_rss_bytes();
  // The same peak twice: the runner rewrites host_peak_rss_bytes after the checkpoint round
  // trip (the whole process's), _training keeps the training steps' own.
  const std::uint64_t training_peak = std::max(peak, max_sampled);
  memory["host_peak_rss_bytes"] = training_peak;
  memory["host_peak_rss_bytes_training"] = training_peak;
  if (device_stats_) memory["device_per_step"] = device_;
}

}  // namespace gpubench
