#include "profile/nvtx_probe.h"

#include <nvtx3/nvToolsExt.h>

namespace gpubench {

std::string nvtx_step_range_name(const std::string& config_id, int step, bool measured) {
  return config_id + (measured ? " \u00b7 step " : " \u00b7 warmup step ") + std::to_string(step);
}

std::string nvtx_phase_range_name(const std::string& step_range_name, Phase phase) {
  return step_range_name + " \u00b7 " + phase_name(phase);
}

std::uint32_t nvtx_phase_color(Phase phase) {
  switch (phase) {
    case Phase::Data: return 0xFF9E9E9E;       // grey: host-side batch assembly
    case Phase::H2D: return 0xFFFFB300;        // amber: copies
    case Phase::Forward: return 0xFF43A047;    // green
    case Phase::Backward: return 0xFFE53935;   // red
    case Phase::Optimizer: return 0xFF1E88E5;  // blue
  }
  return 0xFF000000;
}

namespace {
constexpr std::uint32_t kRunColor = 0xFF5E35B1;        // purple
constexpr std::uint32_t kStepColor = 0xFF00897B;       // teal
constexpr std::uint32_t kWarmupStepColor = 0xFFBDBDBD;  // light grey: not measured

// One domain for the whole process, created at first use and never destroyed: configs
// run one after another in the same process, and a tool keys its timeline rows on the
// handle, so a fresh domain per config would split "gpubench" into several rows.
nvtxDomainHandle_t gpubench_domain() {
  static const nvtxDomainHandle_t domain = nvtxDomainCreateA(kNvtxDomainName);
  return domain;
}

nvtxEventAttributes_t attributes(std::uint32_t color) {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = color;
  return a;
}

// Names go as ASCII messages (UTF-8 bytes), not registered strings: step and phase names
// carry the step number, so each is used once and registering them would only grow the
// tool's string table for the whole process. The step number also goes in the payload,
// so nsys exports can filter on it without parsing names.
void push_ascii(const std::string& message, std::uint32_t color, std::int64_t step) {
  nvtxEventAttributes_t a = attributes(color);
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = message.c_str();
  a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
  a.payload.llValue = step;
  nvtxDomainRangePushEx(gpubench_domain(), &a);
}
}  // namespace


NvtxProbe::~NvtxProbe() {
  pop_if_open(phase_open_);
  pop_if_open(step_open_);
  pop_if_open(run_open_);
}

void NvtxProbe::pop_if_open(bool& open) {
  if (!open) return;
  nvtxDomainRangePop(gpubench_domain());
  open = false;
}

void NvtxProbe::run_begin(const std::string& config_id) {
  config_id_ = config_id;
  push_ascii(config_id_, kRunColor, 0);
  run_open_ = true;
}

void NvtxProbe::run_end() {
  pop_if_open(phase_open_);
  pop_if_open(step_open_);
  pop_if_open(run_open_);
}

void NvtxProbe::step_begin(int step, bool measured) {
  step_ = step;
  step_name_ = nvtx_step_range_name(config_id_, step, measured);
  push_ascii(step_name_, measured ? kStepColor : kWarmupStepColor, step);
  step_open_ = true;
}

void NvtxProbe::step_end(int, bool) {
  pop_if_open(phase_open_);
  pop_if_open(step_open_);
}

void NvtxProbe::phase_begin(Phase phase) {
  push_ascii(nvtx_phase_range_name(step_name_, phase), nvtx_phase_color(phase), step_);
  phase_open_ = true;
}

void NvtxProbe::phase_end(Phase) { pop_if_open(phase_open_); }


void NvtxProbe::write_result(nlohmann::json& result) const {
  result["nvtx"] = {{"compiled", true}, {"domain", kNvtxDomainName}};
}

}  // namespace gpubench
