#include "harness/profile/cupti_collector.h"

#include <gtest/gtest.h>

#include "cupti_mock_activity_api.h"

namespace gpubench {
namespace {

using testing::mock_backend;
using testing::MockCuptiState;

const std::vector<std::string> kStartCalls = {
    "subscribe",     "register_buffer_callbacks", "enable:CONCURRENT_KERNEL", "enable:MEMCPY", "enable:MEMSET",
    "enable:RUNTIME", "enable:DRIVER"};

CuptiCall failure(CuptiCall::Code code, std::string message) {
  CuptiCall call;
  call.code = code;
  call.message = std::move(message);
  return call;
}

// Drives the collector the way the Trainer does, moving the mock clock: one warm-up step,
// then measured steps of 1 ms at 1 ms intervals with H2D [0,100) us, forward [100,400) us,
// backward [400,800) us inside each step. The GPU work is pushed into "CUPTI" as it goes.
class CuptiCollectorRun : public ::testing::Test {
 protected:
  std::shared_ptr<MockCuptiState> state = std::make_shared<MockCuptiState>();
  CuptiCollector collector{mock_backend(state)};

  void at(std::uint64_t ns) { state->now_ns = ns; }

  void phase(Phase p, std::uint64_t begin, std::uint64_t end) {
    at(begin);
    collector.phase_begin(p);
    at(end);
    collector.phase_end(p);
  }

  void measured_step(int step) {
    const std::uint64_t t0 = 2'000'000 * static_cast<std::uint64_t>(step + 1);
    at(t0);
    collector.step_begin(step, true);
    phase(Phase::H2D, t0, t0 + 100'000);
    phase(Phase::Forward, t0 + 100'000, t0 + 400'000);
    phase(Phase::Backward, t0 + 400'000, t0 + 800'000);
    at(t0 + 1'000'000);
    collector.step_end(step, true);
    // H2D copy 1 MB in 50 us (20 GB/s), a 200 us forward GEMM, a 300 us backward GEMM.
    // Correlation ids are unique, as CUPTI's: the forward GEMM's launch call is recorded.
    const auto id = static_cast<std::uint32_t>(10 * (step + 1));
    state->buffered.memcpys.push_back({MemcpyKind::HostToDevice, 1'000'000, t0 + 10'000, t0 + 60'000, 0, 7, id + 1, true});
    state->buffered.kernels.push_back({"gemm_fwd", t0 + 150'000, t0 + 350'000, 0, 7, id + 2});
    state->buffered.kernels.push_back({"gemm_bwd", t0 + 450'000, t0 + 750'000, 0, 7, id + 3});
    state->buffered.runtime_calls.push_back({211, "cudaLaunchKernel_v7000", t0 + 140'000, t0 + 145'000, 1, id + 2});
  }

  void warmup_step() {
    at(500'000);
    collector.step_begin(-1, false);
    state->buffered.kernels.push_back({"warmup", 600'000, 900'000, 0, 7, 0});
    collector.step_end(-1, false);
  }

  nlohmann::json result() const {
    nlohmann::json j;
    collector.write_result(j);
    return j;
  }
};

TEST_F(CuptiCollectorRun, SyntheticRecordsFlowThroughToTheSummary) {
  collector.run_begin("cnn/cuda/fp32/pinned/single");
  warmup_step();
  for (int step = 0; step < 3; ++step) measured_step(step);
  collector.run_end();

  EXPECT_EQ(collector.state(), CuptiCollector::State::Done);
  const nlohmann::json c = result()["cupti"];
  EXPECT_EQ(c["status"], "ok");
  EXPECT_FALSE(c.contains("partial"));
  EXPECT_EQ(c["measured_steps"], 3);
  // 500 us of kernels in each 1 ms step.
  EXPECT_DOUBLE_EQ(c["gpu_busy_share"]["median"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(c["gpu_busy_share_overall"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(c["kernel_ms_by_phase"]["forward"]["per_step_ms"]["median"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(c["kernel_ms_by_phase"]["backward"]["total_ms"].get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(c["kernel_ms_by_phase"]["h2d"]["total_ms"].get<double>(), 0.0);
  EXPECT_EQ(c["top_kernels"][0]["name"], "gemm_bwd");
  EXPECT_EQ(c["top_kernels"][0]["count"], 3);
  EXPECT_DOUBLE_EQ(c["top_kernels"][0]["mean_us"].get<double>(), 300.0);
  EXPECT_EQ(c["top_kernels"][1]["name"], "gemm_fwd");
  EXPECT_DOUBLE_EQ(c["memcpy"]["h2d"]["gb_per_s"].get<double>(), 20.0);
  EXPECT_EQ(c["memcpy"]["h2d"]["pinned_count"], 3);
  // Last kernel of step N ends at +750 us, the next step's first starts 2 ms + 150 us later.
  EXPECT_DOUBLE_EQ(c["idle_gap_between_steps_us"]["median"].get<double>(), 1400.0);
  EXPECT_DOUBLE_EQ(c["kernels_per_step"]["median"].get<double>(), 2.0);
  EXPECT_EQ(c["records"]["runtime_calls_in_measured_steps"], 3);
  EXPECT_EQ(c["clock"]["source"], "cuptiGetTimestamp");

  // The trace writer's view keeps every record, warm-up included, with the windows.
  EXPECT_EQ(collector.records().kernels.size(), 7u);
  EXPECT_EQ(collector.step_windows().size(), 3u);
  EXPECT_EQ(collector.phase_windows().size(), 9u);
  EXPECT_EQ(collector.phase_windows()[1].phase, Phase::Forward);
  EXPECT_EQ(collector.phase_windows()[1].start_ns, 2'100'000u);
}

TEST_F(CuptiCollectorRun, CuptiIsEnabledAtRunBeginAndDetachedAtRunEnd) {
  collector.run_begin("id");
  EXPECT_EQ(state->calls, kStartCalls);
  EXPECT_EQ(collector.state(), CuptiCollector::State::Collecting);
  measured_step(0);
  state->calls.clear();
  collector.run_end();
  // Let the device finish, stop producing records, flush them all, then detach (a
  // left-attached CUPTI slows training).
  const std::vector<std::string> end_calls = {"synchronize_device",
                                              "disable:CONCURRENT_KERNEL",
                                              "disable:MEMCPY",
                                              "disable:MEMSET",
                                              "disable:RUNTIME",
                                              "disable:DRIVER",
                                              "flush_all",
                                              "take_records",
                                              "finalize"};
  EXPECT_EQ(state->calls, end_calls);
}

TEST_F(CuptiCollectorRun, EndOfAMeasuredWindowFlushes) {
  collector.run_begin("id");
  measured_step(0);
  EXPECT_EQ(state->count("flush_all"), 0);
  at(9'000'000);
  state->calls.clear();
  collector.step_begin(5, false);  // back to unmeasured steps: the window closed
  EXPECT_EQ(state->count("flush_all"), 1);
  // The device finishes first: a forced flush of running work gives incomplete records.
  EXPECT_EQ(state->calls, (std::vector<std::string>{"synchronize_device", "flush_all", "take_records"}));
  EXPECT_EQ(collector.records().kernels.size(), 2u);
  collector.step_end(5, false);
  collector.step_begin(6, false);
  EXPECT_EQ(state->count("flush_all"), 1);  // once per window
}

TEST_F(CuptiCollectorRun, FlushOnRequestKeepsRecordsAndWriteResultMarksThemPartial) {
  collector.run_begin("id");
  measured_step(0);
  collector.flush();
  EXPECT_EQ(collector.records().kernels.size(), 2u);
  const nlohmann::json c = result()["cupti"];
  EXPECT_EQ(c["status"], "ok");
  EXPECT_EQ(c["partial"], true);
}

TEST_F(CuptiCollectorRun, AnotherSubscriberTurnsItOffWithoutTouchingCupti) {
  state->failures["subscribe"] = failure(CuptiCall::Code::OtherSubscriber,
                                         "cuptiSubscribe_v2: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: "
                                         "CUPTI is held by Nsight Systems");
  collector.run_begin("id");
  measured_step(0);
  collector.flush();
  collector.run_end();
  EXPECT_EQ(state->calls, std::vector<std::string>{"subscribe"});  // no enable, no finalize of the holder's CUPTI
  EXPECT_EQ(collector.state(), CuptiCollector::State::Unavailable);
  const nlohmann::json c = result()["cupti"];
  EXPECT_EQ(c, (nlohmann::json{{"status", "unavailable"}, {"reason", state->failures["subscribe"].message}}));
}

TEST_F(CuptiCollectorRun, EnableFailureRollsBackAndDetaches) {
  state->failures["enable:MEMSET"] =
      failure(CuptiCall::Code::Error, "cuptiActivityEnable(MEMSET): CUPTI_ERROR_UNKNOWN");
  collector.run_begin("id");
  EXPECT_EQ(collector.state(), CuptiCollector::State::Unavailable);
  EXPECT_EQ(collector.reason(), "cuptiActivityEnable(MEMSET): CUPTI_ERROR_UNKNOWN");
  EXPECT_EQ(state->count("disable:CONCURRENT_KERNEL"), 1);
  EXPECT_EQ(state->count("disable:MEMCPY"), 1);
  EXPECT_EQ(state->count("disable:MEMSET"), 0);  // never enabled
  EXPECT_EQ(state->count("finalize"), 1);
  EXPECT_EQ(state->count("enable:RUNTIME"), 0);
  EXPECT_EQ(result()["cupti"]["status"], "unavailable");
}

TEST_F(CuptiCollectorRun, FlushFailureMidRunReportsFailedAndDetaches) {
  state->failures["flush_all"] = failure(CuptiCall::Code::Error, "cuptiActivityFlushAll(FORCED): CUPTI_ERROR_UNKNOWN");
  collector.run_begin("id");
  measured_step(0);
  collector.run_end();
  EXPECT_EQ(collector.state(), CuptiCollector::State::Failed);
  EXPECT_EQ(state->count("finalize"), 1);
  const nlohmann::json c = result()["cupti"];
  EXPECT_EQ(c["status"], "failed");
  EXPECT_EQ(c["reason"], "cuptiActivityFlushAll(FORCED): CUPTI_ERROR_UNKNOWN");
}

TEST_F(CuptiCollectorRun, AnExceptionFromTheApiNeverReachesTheTrainer) {
  state->throw_on = "take_records";
  collector.run_begin("id");
  measured_step(0);
  EXPECT_NO_THROW(collector.run_end());
  EXPECT_EQ(collector.state(), CuptiCollector::State::Failed);
  EXPECT_NE(collector.reason().find("mock failure in take_records"), std::string::npos);
  EXPECT_EQ(state->count("finalize"), 1);

  state->throw_on = "subscribe";
  EXPECT_NO_THROW(collector.run_begin("again"));
  EXPECT_EQ(collector.state(), CuptiCollector::State::Unavailable);
}

TEST_F(CuptiCollectorRun, ASecondRunStartsClean) {
  collector.run_begin("first");
  measured_step(0);
  collector.run_end();
  collector.run_begin("second");
  EXPECT_TRUE(collector.records().kernels.empty());
  EXPECT_TRUE(collector.step_windows().empty());
  measured_step(0);
  collector.run_end();
  EXPECT_EQ(state->count("subscribe"), 2);
  EXPECT_EQ(state->count("finalize"), 2);
  EXPECT_EQ(result()["cupti"]["measured_steps"], 1);
}

TEST_F(CuptiCollectorRun, UnbalancedCallsAreHarmless) {
  EXPECT_NO_THROW(collector.step_end(0, true));
  EXPECT_NO_THROW(collector.phase_end(Phase::Forward));
  EXPECT_NO_THROW(collector.run_end());
  EXPECT_EQ(result()["cupti"]["status"], "unavailable");  // never ran
  collector.run_begin("id");
  collector.phase_begin(Phase::Forward);  // outside a measured step: ignored
  collector.phase_end(Phase::Forward);
  collector.run_end();
  collector.run_end();
  EXPECT_TRUE(collector.phase_windows().empty());
  EXPECT_EQ(state->count("finalize"), 1);
}

TEST_F(CuptiCollectorRun, PausingDisablesAndFlushesResumingEnablesAgainKeepingRecords) {
  collector.run_begin("id");
  measured_step(0);
  state->calls.clear();
  collector.set_active(false);
  EXPECT_EQ(state->calls, (std::vector<std::string>{"synchronize_device", "disable:CONCURRENT_KERNEL", "disable:MEMCPY",
                                                    "disable:MEMSET", "disable:RUNTIME", "disable:DRIVER", "flush_all",
                                                    "take_records"}));
  EXPECT_EQ(collector.records().kernels.size(), 2u) << "step 0's records are kept across the pause";
  state->calls.clear();
  collector.set_active(false);  // already paused: nothing to do
  EXPECT_TRUE(state->calls.empty());
  collector.set_active(true);
  EXPECT_EQ(state->calls, (std::vector<std::string>{"enable:CONCURRENT_KERNEL", "enable:MEMCPY", "enable:MEMSET",
                                                    "enable:RUNTIME", "enable:DRIVER"}));
  measured_step(1);
  state->calls.clear();
  collector.run_end();
  EXPECT_EQ(state->count("disable:MEMCPY"), 1) << "run_end disables what the resume enabled";
  EXPECT_EQ(collector.state(), CuptiCollector::State::Done);
  EXPECT_EQ(collector.records().kernels.size(), 4u);
  EXPECT_EQ(result()["cupti"]["measured_steps"], 2);
}

TEST_F(CuptiCollectorRun, ARunThatEndsWhilePausedStillFlushesAndDetaches) {
  collector.run_begin("id");
  measured_step(0);
  collector.set_active(false);
  state->calls.clear();
  collector.run_end();
  EXPECT_EQ(state->count("disable:MEMCPY"), 0) << "nothing left enabled";
  EXPECT_EQ(state->count("finalize"), 1);
  EXPECT_EQ(collector.state(), CuptiCollector::State::Done);
}

TEST_F(CuptiCollectorRun, AResumeThatCuptiRefusesFailsTheCollectorCleanly) {
  collector.run_begin("id");
  collector.set_active(false);
  state->failures["enable:MEMSET"] = failure(CuptiCall::Code::Error, "CUPTI_ERROR_NOT_INITIALIZED");
  state->calls.clear();
  collector.set_active(true);
  EXPECT_EQ(collector.state(), CuptiCollector::State::Failed);
  EXPECT_EQ(collector.reason(), "CUPTI_ERROR_NOT_INITIALIZED");
  EXPECT_EQ(state->count("disable:CONCURRENT_KERNEL"), 1) << "what the resume enabled is rolled back";
  EXPECT_EQ(state->count("finalize"), 1);
}

TEST(CuptiCollector, DestructorDetachesARunThatNeverEnded) {
  auto state = std::make_shared<MockCuptiState>();
  {
    CuptiCollector collector(mock_backend(state));
    collector.run_begin("id");
  }
  EXPECT_EQ(state->count("finalize"), 1);
  EXPECT_EQ(state->count("disable:RUNTIME"), 1);
}

TEST(CuptiCollector, WithoutABackendItWritesUnavailableWithTheReason) {
  CuptiCollector collector(CuptiBackend{nullptr, "gpubench was built without CUPTI"});
  collector.run_begin("id");
  collector.step_begin(0, true);
  collector.phase_begin(Phase::Forward);
  collector.phase_end(Phase::Forward);
  collector.step_end(0, true);
  collector.run_end();
  collector.flush();
  nlohmann::json result = {{"config", "id"}};
  collector.write_result(result);
  EXPECT_EQ(result["cupti"],
            (nlohmann::json{{"status", "unavailable"}, {"reason", "gpubench was built without CUPTI"}}));
  EXPECT_EQ(result["config"], "id");  // only its own key
  EXPECT_EQ(collector.name(), "cupti");
}

}  // namespace
}  // namespace gpubench
