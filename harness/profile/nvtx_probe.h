#pragma once
#include <cstdint>
#include <string>

#include "harness/profile/probe.h"

namespace gpubench {

// The NVTX domain every gpubench range lives in (Nsight Systems groups ranges by domain).
inline constexpr const char* kNvtxDomainName = "gpubench";

// Range names, shared by NvtxProbe and its tests (and anything that parses an nsys export):
//   run:    "<config id>"                 e.g. "cnn/cuda/amp-bf16/pinned"
//   step:   "step"  (warm-up: "warmup step"), nested in the run; the step number is the payload
//   phase:  "data" "h2d" "forward" "backward" "optimizer", nested in the step
// Stable names, because Nsight groups by name: `nsys stats --report nvtxsum` totals each
// phase over the steps, and nvtxkernsum/nvtxgpuproj attribute kernels to phases; which
// config a step belongs to is the run range above it (one config per process).
const char* nvtx_step_range_name(bool measured);
const char* nvtx_phase_range_name(Phase phase);
// ARGB colour of a phase's range, so phases read at a glance in the Nsight timeline.
std::uint32_t nvtx_phase_color(Phase phase);

// A range in the gpubench domain named by a registered string: what
// `nsys profile --capture-range=nvtx --nvtx-capture=NAME@gpubench` matches by default (it
// ignores ASCII-named ranges unless NSYS_NVTX_PROFILER_REGISTER_ONLY=0). Same thread rules.
void nvtx_push_registered(const char* name);
void nvtx_pop();

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
  int step_ = 0;
  bool run_open_ = false, step_open_ = false, phase_open_ = false;
};

}  // namespace gpubench
