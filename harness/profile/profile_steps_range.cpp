#include "harness/profile/profile_steps_range.h"

#include <cerrno>
#include <cstdlib>

#include "core/config/errors.h"
#include "harness/profile/nvtx_probe.h"

#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

namespace gpubench {
namespace {

[[noreturn]] void bad_steps(const std::string& text, const std::string& why) {
  throw UsageError("--profile-steps '" + text + "' is invalid: " + why +
                   "; expected A:B with whole step numbers 0 <= A <= B (e.g. 10:20)");
}

// Strict decimal: digits only (no sign, blanks or trailing text), fits in an int.
int parse_step(const std::string& text, const std::string& part, const char* which) {
  if (part.empty()) bad_steps(text, std::string(which) + " step is missing");
  if (part[0] == '-') bad_steps(text, std::string(which) + " step " + part + " is negative");
  for (char c : part)
    if (c < '0' || c > '9') bad_steps(text, std::string(which) + " step '" + part + "' is not a whole number");
  errno = 0;
  const long value = std::strtol(part.c_str(), nullptr, 10);
  if (errno == ERANGE || value > 2147483647L) bad_steps(text, std::string(which) + " step " + part + " is too large");
  return static_cast<int>(value);
}

std::string describe(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
}

}  // namespace

ProfileSteps parse_profile_steps(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) bad_steps(text, "no ':' between the first and last step");
  if (text.find(':', colon + 1) != std::string::npos) bad_steps(text, "more than one ':'");
  ProfileSteps steps;
  steps.first = parse_step(text, text.substr(0, colon), "first");
  steps.last = parse_step(text, text.substr(colon + 1), "last");
  if (steps.first > steps.last)
    bad_steps(text, "first step " + std::to_string(steps.first) + " is after last step " + std::to_string(steps.last));
  return steps;
}

void ProfileStepsRange::step_begin(int step, bool) {
  if (state_ != State::Waiting || step != steps_.first) return;
  nvtx_push_registered(kProfileStepsRangeName);
  start_cuda_profiler();
  state_ = State::Capturing;
}

void ProfileStepsRange::start_cuda_profiler() {
  const cudaError_t error = cudaProfilerStart();
  if (error == cudaSuccess) {
    cuda_profiler_started_ = true;
    return;
  }
  // Clear the sticky "last error" so a later cudaGetLastError() elsewhere does not
  // report our failed start as its own.
  (void)cudaGetLastError();
  reason_ = describe(error);
}

void ProfileStepsRange::step_end(int step, bool) {
  if (state_ == State::Capturing && step == steps_.last) stop();
}

void ProfileStepsRange::run_end() {
  if (state_ == State::Capturing) stop();
}

void ProfileStepsRange::stop() {
  if (cuda_profiler_started_) {
    const cudaError_t error = cudaProfilerStop();
    if (error != cudaSuccess) {
      (void)cudaGetLastError();
      stop_reason_ = describe(error);
    }
  }
  nvtx_pop();
  state_ = State::Stopped;
}

void ProfileStepsRange::write_result(nlohmann::json& result) const {
  nlohmann::json section = {{"steps", steps_.text()},
                            {"nvtx_capture", std::string(kProfileStepsRangeName) + "@" + kNvtxDomainName}};
  if (state_ == State::Waiting) {
    section["status"] = "not_reached";
    section["reason"] = "the run ended before step " + std::to_string(steps_.first);
  } else if (cuda_profiler_started_) {
    section["status"] = "started";  // Capturing: write_result before run_end, the capture is still on
  } else {
    section["status"] = "unavailable";
    section["reason"] = reason_;
  }
  if (!stop_reason_.empty()) section["stop_reason"] = stop_reason_;
  result["profiler_range"] = section;
}

}  // namespace gpubench
