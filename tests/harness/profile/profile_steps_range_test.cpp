#include "harness/profile/profile_steps_range.h"

#include <gtest/gtest.h>

#include "core/config/errors.h"

#include <cuda_runtime_api.h>

namespace gpubench {
namespace {

TEST(ParseProfileSteps, AcceptsAnInclusiveRange) {
  const ProfileSteps steps = parse_profile_steps("10:20");
  EXPECT_EQ(steps.first, 10);
  EXPECT_EQ(steps.last, 20);
  EXPECT_EQ(steps.text(), "10:20");
  const ProfileSteps one = parse_profile_steps("0:0");
  EXPECT_EQ(one.first, 0);
  EXPECT_EQ(one.last, 0);
}

// The message names the bad value and the expected form (DESIGN.md, Conventions).
void expect_usage_error(const std::string& text, const std::string& why) {
  try {
    parse_profile_steps(text);
    ADD_FAILURE() << "'" << text << "' was accepted";
  } catch (const UsageError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'" + text + "'"), std::string::npos) << message;
    EXPECT_NE(message.find("expected A:B"), std::string::npos) << message;
    EXPECT_NE(message.find(why), std::string::npos) << message;
  }
}

TEST(ParseProfileSteps, RejectsBadText) {
  expect_usage_error("5:2", "first step 5 is after last step 2");
  expect_usage_error("-1:4", "negative");
  expect_usage_error("1:-4", "negative");
  expect_usage_error("a:4", "not a whole number");
  expect_usage_error("1:4x", "not a whole number");
  expect_usage_error("1.5:4", "not a whole number");
  expect_usage_error("+1:4", "not a whole number");
  expect_usage_error(" 1:4", "not a whole number");
  expect_usage_error("7", "no ':'");
  expect_usage_error("", "no ':'");
  expect_usage_error(":4", "first step is missing");
  expect_usage_error("4:", "last step is missing");
  expect_usage_error("1:2:3", "more than one ':'");
  expect_usage_error("1:99999999999999999999", "too large");
}

// Drives steps 0..4 with a capture over `steps`.
nlohmann::json run_with_range(ProfileSteps steps, int step_count) {
  ProfileStepsRange range(steps);
  range.run_begin("mlp/cuda/fp32/pinned");
  for (int step = 0; step < step_count; ++step) {
    range.step_begin(step, true);
    range.step_end(step, true);
  }
  range.run_end();
  nlohmann::json result = nlohmann::json::object();
  range.write_result(result);
  return result;
}

// Without a driver cudaProfilerStart fails; the probe records why and never throws.
// With one (the GPU machine) the same test expects a started capture.
TEST(ProfileStepsRange, RecordsWhetherTheCaptureStarted) {
  nlohmann::json result;
  ASSERT_NO_THROW(result = run_with_range(parse_profile_steps("1:3"), 5));
  const auto& section = result.at("profiler_range");
  EXPECT_EQ(section.at("steps"), "1:3");
  int devices = 0;
  const cudaError_t probe = cudaGetDeviceCount(&devices);
  (void)cudaGetLastError();
  if (probe == cudaSuccess && devices > 0) {
    EXPECT_EQ(section.at("status"), "started") << section.dump();
    EXPECT_FALSE(section.contains("stop_reason")) << section.dump();
    return;
  }
  EXPECT_EQ(section.at("status"), "unavailable") << section.dump();
  // The driver's own words, e.g. "cudaErrorInsufficientDriver: CUDA driver version is
  // insufficient for CUDA runtime version" or "cudaErrorNoDevice: no CUDA-capable device".
  const std::string reason = section.at("reason");
  EXPECT_NE(reason.find("cudaError"), std::string::npos) << reason;
  EXPECT_NE(reason.find(cudaGetErrorString(probe)), std::string::npos) << reason;
}

TEST(ProfileStepsRange, SaysWhenTheRunEndedBeforeTheFirstStep) {
  const auto result = run_with_range(parse_profile_steps("10:20"), 5);
  EXPECT_EQ(result["profiler_range"]["status"], "not_reached");
  EXPECT_NE(result["profiler_range"]["reason"].get<std::string>().find("step 10"), std::string::npos);
}

TEST(ProfileStepsRange, KeepsOtherResultKeys) {
  ProfileStepsRange range(parse_profile_steps("0:1"));
  nlohmann::json result = {{"step_ms", 1.5}};
  range.write_result(result);
  EXPECT_EQ(result["step_ms"], 1.5);
  EXPECT_TRUE(result.contains("profiler_range"));
}

}  // namespace
}  // namespace gpubench
