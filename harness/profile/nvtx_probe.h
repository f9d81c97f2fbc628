#pragma once
#include <cstdint>
#include <string>

#include "profile/probe.h"

namespace gpubench {

// The NVTX domain every gpubench range lives in (Nsight Systems groups ranges by domain).
inline constexpr const char* kNvtxDomainName = "gpubench";

// Range names, shared by NvtxProbe and its tests (and anything that parses an nsys export):
//   run:    "<config id>"
//   step:   "<config id> · step 12"          (warm-up: "<config id> · warmup step 0")
//   phase:  "<config id> · step 12 · backward"
// The separator is U+00B7 MIDDLE DOT in UTF-8; NVTX passes the bytes through unchanged.
std::string nvtx_step_range_name(const std::string& config_id, int step, bool measured);
std::string nvtx_phase_range_name(const std::string& step_range_name, Phase phase);
// ARGB colour of a phase's range, so phases read at a glance in the Nsight timeline.
std::uint32_t nvtx_phase_color(Phase phase);

// NVTX3 ranges around the run, each step and each phase, in the "gpubench" domain.
// NVTX itself costs ~nothing
// without a tool attached (its function pointers resolve to no-ops on first use); with
// one attached (nsys, or NVTX_INJECTION64_PATH) every call goes to that tool.
// Ranges are thread-local in NVTX: call all methods from the thread that runs the steps.
class NvtxProbe final : public Probe {
 public:
  NvtxProbe() = default;
  // Closes ranges still open (a step that threw before its step_end), so the thread's
  // NVTX stack stays balanced for the next config.
  ~NvtxProbe() override;
  NvtxProbe(const NvtxProbe&) = delete;
  NvtxProbe& operator=(const NvtxProbe&) = delete;

  std::string name() const override { return "nvtx"; }
  void run_begin(const std::string& config_id) override;
  void run_end() override;
  void step_begin(int step, bool measured) override;
  void step_end(int step, bool measured) override;
  void phase_begin(Phase phase) override;
  void phase_end(Phase phase) override;
  // Adds "nvtx": {"compiled": true, "domain": "gpubench"} (every build emits NVTX3 ranges).
  void write_result(nlohmann::json& result) const override;

 private:
  void pop_if_open(bool& open);

  std::string config_id_;
  std::string step_name_;  // cached at step_begin: phase names extend it
  int step_ = 0;
  bool run_open_ = false, step_open_ = false, phase_open_ = false;
};

}  // namespace gpubench
