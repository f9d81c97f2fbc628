#include "harness/profile/nvtx_probe.h"

#include <map>
#include <mutex>

#include <nvtx3/nvToolsExt.h>

namespace gpubench {

const char* nvtx_step_range_name(bool measured) { return measured ? "step" : "warmup step"; }

const char* nvtx_phase_range_name(Phase phase) { return phase_name(phase); }

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
constexpr std::uint32_t kCaptureColor = 0xFF212121;     // near black: the profiled window

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

// Names go as ASCII messages (UTF-8 bytes): nsys reads those without registration. The
// step number goes in the payload, so nsys exports can filter on it without parsing names.
void push_ascii(const char* message, std::uint32_t color, std::int64_t step) {
  nvtxEventAttributes_t a = attributes(color);
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = message;
  a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
  a.payload.llValue = step;
  nvtxDomainRangePushEx(gpubench_domain(), &a);
}
}  // namespace

void nvtx_push_registered(const char* name) {
  // One registration per name for the process (the tool keeps the handle's string).
  static std::mutex mutex;
  static std::map<std::string, nvtxStringHandle_t> handles;
  nvtxStringHandle_t handle = nullptr;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    auto& slot = handles[name];
    if (slot == nullptr) slot = nvtxDomainRegisterStringA(gpubench_domain(), name);
    handle = slot;
  }
  nvtxEventAttributes_t a = attributes(kCaptureColor);
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = handle;
  nvtxDomainRangePushEx(gpubench_domain(), &a);
}

void nvtx_pop() { nvtxDomainRangePop(gpubench_domain()); }

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
  push_ascii(config_id_.c_str(), kRunColor, 0);
  run_open_ = true;
}

void NvtxProbe::run_end() {
  pop_if_open(phase_open_);
  pop_if_open(step_open_);
  pop_if_open(run_open_);
}

void NvtxProbe::step_begin(int step, bool measured) {
  step_ = step;
  push_ascii(nvtx_step_range_name(measured), measured ? kStepColor : kWarmupStepColor, step);
  step_open_ = true;
}

void NvtxProbe::step_end(int, bool) {
  pop_if_open(phase_open_);
  pop_if_open(step_open_);
}

void NvtxProbe::phase_begin(Phase phase) {
  push_ascii(nvtx_phase_range_name(phase), nvtx_phase_color(phase), step_);
  phase_open_ = true;
}

void NvtxProbe::phase_end(Phase) { pop_if_open(phase_open_); }


void NvtxProbe::write_result(nlohmann::json& result) const {
  result["nvtx"] = {{"compiled", true}, {"domain", kNvtxDomainName}};
}

}  // namespace gpubench
