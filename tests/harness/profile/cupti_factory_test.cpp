// The build's real backend on whatever machine runs the tests. On the dev/CI machines
// (CUDA toolkit, no driver) CUPTI must come out "unavailable" with CUPTI's reason, and
// the probe must never throw; on a GPU machine the same run must come out "ok".
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include "harness/profile/cupti_activity_api.h"
#include "harness/profile/cupti_collector.h"

#include <cuda_runtime_api.h>

namespace gpubench {
namespace {

bool machine_has_gpu() {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();  // clear the sticky error of a machine without a driver
  return ok;
}

TEST(CuptiFactory, GivesTheRealApi) {
  const CuptiBackend backend = make_cupti_activity_api();
  EXPECT_NE(backend.api, nullptr);
  EXPECT_TRUE(backend.unavailable_reason.empty());
}

TEST(CuptiFactory, ARunWithTheRealBackendIsOkOnAGpuAndUnavailableWithAReasonWithout) {
  CuptiCollector collector;
  nlohmann::json result;
  EXPECT_NO_THROW({
    collector.run_begin("cnn/cpu/fp32/pageable/single");
    collector.step_begin(0, false);
    collector.step_end(0, false);
    collector.step_begin(1, true);
    collector.phase_begin(Phase::Forward);
    collector.phase_end(Phase::Forward);
    collector.step_end(1, true);
    collector.run_end();
    collector.write_result(result);
  });
  ASSERT_TRUE(result.contains("cupti"));
  const nlohmann::json& cupti = result["cupti"];
  if (machine_has_gpu()) {
    EXPECT_EQ(cupti["status"], "ok") << cupti.dump();
    EXPECT_EQ(cupti["measured_steps"], 1);
  } else {
    EXPECT_EQ(cupti["status"], "unavailable");
    ASSERT_TRUE(cupti["reason"].is_string());
    EXPECT_FALSE(cupti["reason"].get<std::string>().empty());
    EXPECT_EQ(cupti.size(), 2u) << cupti.dump();  // exactly {status, reason}
    // CUPTI's own result string is in the reason.
    EXPECT_NE(cupti["reason"].get<std::string>().find("CUPTI_ERROR"), std::string::npos) << cupti.dump();
  }
  std::cout << "cupti: " << cupti.dump() << "\n";
}

// The clock alignment note in cupti_collector.h relies on cuptiGetTimestamp working
// before any GPU activity and being CUPTI's Linux default, CLOCK_REALTIME.
TEST(CuptiFactory, TimestampIsOnTheSystemClockEvenWithoutADriver) {
  const CuptiBackend backend = make_cupti_activity_api();
  ASSERT_NE(backend.api, nullptr);
  const auto system_ns = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  const std::int64_t before = system_ns();
  const auto cupti = static_cast<std::int64_t>(backend.api->timestamp_ns());
  const std::int64_t after = system_ns();
  EXPECT_GE(cupti, before - 1'000'000);  // 1 ms slack for a clock read elsewhere
  EXPECT_LE(cupti, after + 1'000'000);
  EXPECT_LE(cupti, static_cast<std::int64_t>(backend.api->timestamp_ns()));
}

TEST(CuptiFactory, WithoutAGpuSubscribeFailsWithCuptisResultString) {
  if (machine_has_gpu()) GTEST_SKIP() << "a GPU is present: covered by the run test";
  CuptiBackend backend = make_cupti_activity_api();
  ASSERT_NE(backend.api, nullptr);
  const CuptiCall call = backend.api->subscribe();
  EXPECT_FALSE(call.ok());
  EXPECT_NE(call.message.find("cuptiSubscribe"), std::string::npos) << call.message;
  EXPECT_NE(call.message.find("CUPTI_ERROR"), std::string::npos) << call.message;
  std::cout << "subscribe without a driver: " << call.message << "\n";
}

}  // namespace
}  // namespace gpubench
