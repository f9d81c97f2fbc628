#include "harness/profile/cupti_summary.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

KernelRecord kernel(std::string name, std::uint64_t start, std::uint64_t end) {
  return {std::move(name), start, end, 0, 7, 0};
}

MemcpyRecord copy(MemcpyKind kind, std::uint64_t bytes, std::uint64_t start, std::uint64_t end, bool pinned) {
  return {kind, bytes, start, end, 0, 7, 0, pinned};
}

// Two measured steps of 1 ms each, 1 ms apart: [1'000'000, 2'000'000) and [3'000'000, 4'000'000).
std::vector<StepWindow> two_steps() { return {{0, 1'000'000, 2'000'000}, {1, 3'000'000, 4'000'000}}; }

TEST(CuptiSummary, BusyShareIsUnionOfKernelIntervalsOverStepTime) {
  CuptiRecords records;
  // Step 0: two overlapping kernels (union 300 us) and one more (100 us): busy 400 us of 1000.
  records.kernels.push_back(kernel("a", 1'100'000, 1'300'000));
  records.kernels.push_back(kernel("b", 1'200'000, 1'400'000));
  records.kernels.push_back(kernel("a", 1'500'000, 1'600'000));
  // Step 1: one kernel of 800 us.
  records.kernels.push_back(kernel("c", 3'100'000, 3'900'000));
  const CuptiSummary s = summarize_cupti(records, two_steps(), {});
  EXPECT_EQ(s.measured_steps, 2u);
  EXPECT_EQ(s.gpu_busy_share.count, 2u);
  EXPECT_DOUBLE_EQ(s.gpu_busy_share.min, 0.4);
  EXPECT_DOUBLE_EQ(s.gpu_busy_share.max, 0.8);
  EXPECT_DOUBLE_EQ(s.gpu_busy_share.median, 0.6);
  EXPECT_DOUBLE_EQ(s.gpu_busy_share_overall, (0.4 + 0.8) / 2);
  // Summed kernel time counts the overlap twice: 200 + 200 + 100 + 800 us.
  EXPECT_DOUBLE_EQ(s.kernel_ms_total, 1.3);
  EXPECT_DOUBLE_EQ(s.kernels_per_step.min, 1);
  EXPECT_DOUBLE_EQ(s.kernels_per_step.max, 3);
}

TEST(CuptiSummary, KernelRunningPastTheStepIsClippedToIt) {
  CuptiRecords records;
  records.kernels.push_back(kernel("long", 1'500'000, 2'500'000));  // ends 500 us after step 0
  const CuptiSummary s = summarize_cupti(records, {{0, 1'000'000, 2'000'000}}, {});
  EXPECT_DOUBLE_EQ(s.gpu_busy_share.median, 0.5);
  EXPECT_DOUBLE_EQ(s.kernel_ms_total, 0.5);
}

TEST(CuptiSummary, KernelTimeIsAttributedToPhasesByOverlap) {
  CuptiRecords records;
  records.kernels.push_back(kernel("fwd", 1'100'000, 1'200'000));  // 100 us, all forward
  records.kernels.push_back(kernel("x", 1'350'000, 1'450'000));    // 50 us forward, 50 us backward
  records.kernels.push_back(kernel("bwd", 1'500'000, 1'700'000));  // 200 us backward
  records.kernels.push_back(kernel("gap", 1'800'000, 1'850'000));  // between phases: 50 us
  records.kernels.push_back(kernel("fwd", 3'100'000, 3'300'000));  // step 1: 200 us forward
  const std::vector<PhaseWindow> phases = {{0, Phase::Forward, 1'000'000, 1'400'000},
                                           {0, Phase::Backward, 1'400'000, 1'750'000},
                                           {1, Phase::Forward, 3'000'000, 3'500'000}};
  const CuptiSummary s = summarize_cupti(records, two_steps(), phases);
  const auto& forward = s.kernel_ms_by_phase[static_cast<std::size_t>(Phase::Forward)];
  const auto& backward = s.kernel_ms_by_phase[static_cast<std::size_t>(Phase::Backward)];
  const auto& optimizer = s.kernel_ms_by_phase[static_cast<std::size_t>(Phase::Optimizer)];
  EXPECT_DOUBLE_EQ(forward.total_ms, 0.15 + 0.2);
  EXPECT_EQ(forward.per_step_ms.count, 2u);
  EXPECT_DOUBLE_EQ(forward.per_step_ms.min, 0.15);
  EXPECT_DOUBLE_EQ(forward.per_step_ms.max, 0.2);
  EXPECT_DOUBLE_EQ(backward.total_ms, 0.25);
  EXPECT_DOUBLE_EQ(backward.per_step_ms.min, 0.0);  // step 1 had no backward kernels
  EXPECT_DOUBLE_EQ(optimizer.total_ms, 0.0);
  EXPECT_DOUBLE_EQ(s.kernel_ms_outside_phases.total_ms, 0.05);
  EXPECT_DOUBLE_EQ(s.kernel_ms_total, forward.total_ms + backward.total_ms + s.kernel_ms_outside_phases.total_ms);

  const nlohmann::json j = to_json(s);
  EXPECT_DOUBLE_EQ(j["kernel_ms_by_phase"]["forward"]["total_ms"].get<double>(), 0.35);
  EXPECT_DOUBLE_EQ(j["kernel_ms_by_phase"]["backward"]["share"].get<double>(), 0.25 / 0.65);
  EXPECT_DOUBLE_EQ(j["kernel_ms_by_phase"]["outside_phases"]["total_ms"].get<double>(), 0.05);
}

// As a real loop runs, the host queues a step and moves on: its kernels run after the
// phase windows (and the step window) they were launched in. Each belongs, whole, to the
// step and phase of its launch (the runtime call with its correlation id).
TEST(CuptiSummary, KernelsBelongToThePhaseAndStepThatLaunchedThem) {
  CuptiRecords records;
  const auto launched = [&](std::string name, std::uint64_t launch, std::uint64_t start, std::uint64_t end,
                            std::uint32_t correlation) {
    records.runtime_calls.push_back({0, "cudaLaunchKernel_v7000", launch, launch + 5'000, 1, correlation});
    records.kernels.push_back({std::move(name), start, end, 0, 7, correlation});
  };
  // Step 0's host window [1.0, 2.0) ms: forward launched at 1.1, backward at 1.5; the
  // kernels run at 1.6-1.9 and 2.5-2.9 (into the gap and past the step).
  launched("fwd", 1'100'000, 1'600'000, 1'900'000, 11);
  launched("bwd", 1'500'000, 2'500'000, 2'900'000, 12);
  // Step 1 [3.0, 4.0): launched in forward at 3.2, runs at 4.2-4.5, after the step.
  launched("fwd", 3'200'000, 4'200'000, 4'500'000, 13);
  // A copy launched in step 1 that runs after it counts for step 1.
  records.runtime_calls.push_back({0, "cudaMemcpyAsync_v3020", 3'300'000, 3'310'000, 1, 14});
  records.memcpys.push_back({MemcpyKind::HostToDevice, 4096, 4'600'000, 4'700'000, 0, 7, 14, true});
  const std::vector<PhaseWindow> phases = {{0, Phase::Forward, 1'000'000, 1'400'000},
                                           {0, Phase::Backward, 1'400'000, 1'900'000},
                                           {1, Phase::Forward, 3'000'000, 3'400'000}};
  const CuptiSummary s = summarize_cupti(records, two_steps(), phases);
  EXPECT_EQ(s.kernels_in_steps, 3u);
  EXPECT_EQ(s.kernels_by_start_time, 0u);
  const auto& forward = s.kernel_ms_by_phase[static_cast<std::size_t>(Phase::Forward)];
  const auto& backward = s.kernel_ms_by_phase[static_cast<std::size_t>(Phase::Backward)];
  EXPECT_DOUBLE_EQ(forward.total_ms, 0.3 + 0.3);
  EXPECT_DOUBLE_EQ(backward.total_ms, 0.4);
  EXPECT_DOUBLE_EQ(s.kernel_ms_outside_phases.total_ms, 0);
  EXPECT_DOUBLE_EQ(s.kernel_ms_total, 1.0) << "whole kernels, not clipped to the host windows";
  EXPECT_DOUBLE_EQ(s.gpu_busy_share.min, 0.3);  // step 1: 300 us of its 1 ms period
  EXPECT_DOUBLE_EQ(s.gpu_busy_share.max, 0.7);  // step 0: 300 + 400 us
  EXPECT_EQ(s.copies.at(MemcpyKind::HostToDevice).count, 1u);
}

TEST(CuptiSummary, TopKernelsAreOrderedByTotalTimeThenNameAndCut) {
  CuptiRecords records;
  // "small" runs 3 x 100 us = 300 us; "big" 1 x 400 us; "tie_b" and "tie_a" 200 us each.
  for (std::uint64_t i = 0; i < 3; ++i)
    records.kernels.push_back(kernel("small", 1'000'000 + i * 100'000, 1'100'000 + i * 100'000));
  records.kernels.push_back(kernel("big", 3'000'000, 3'400'000));
  records.kernels.push_back(kernel("tie_b", 3'400'000, 3'600'000));
  records.kernels.push_back(kernel("tie_a", 3'600'000, 3'800'000));
  const CuptiSummary s = summarize_cupti(records, two_steps(), {}, 3);
  ASSERT_EQ(s.top_kernels.size(), 3u);
  EXPECT_EQ(s.top_kernels[0].name, "big");
  EXPECT_EQ(s.top_kernels[1].name, "small");
  EXPECT_EQ(s.top_kernels[2].name, "tie_a");
  EXPECT_EQ(s.top_kernels[1].count, 3u);
  EXPECT_DOUBLE_EQ(s.top_kernels[1].total_ms, 0.3);
  EXPECT_DOUBLE_EQ(s.top_kernels[1].mean_us, 100.0);
  EXPECT_EQ(summarize_cupti(records, two_steps(), {}).top_kernels.size(), 4u);  // default k = 10
}

TEST(CuptiSummary, CopyBandwidthIsBytesOverCopyTime) {
  CuptiRecords records;
  // H2D: 2 MB in 100 us + 2 MB in 300 us -> 4e6 B / 400e-6 s = 10 GB/s; one of them pinned.
  records.memcpys.push_back(copy(MemcpyKind::HostToDevice, 2'000'000, 1'000'000, 1'100'000, true));
  records.memcpys.push_back(copy(MemcpyKind::HostToDevice, 2'000'000, 3'000'000, 3'300'000, false));
  // D2H: 1 kB in 1 us -> 1 GB/s.
  records.memcpys.push_back(copy(MemcpyKind::DeviceToHost, 1'000, 1'900'000, 1'901'000, true));
  records.memsets.push_back({4096, 1'200'000, 1'201'000, 0, 7, 0});
  records.memsets.push_back({4096, 3'200'000, 3'201'000, 0, 7, 0});
  const CuptiSummary s = summarize_cupti(records, two_steps(), {});
  const CopyStat& h2d = s.copies.at(MemcpyKind::HostToDevice);
  EXPECT_EQ(h2d.count, 2u);
  EXPECT_EQ(h2d.bytes, 4'000'000u);
  EXPECT_DOUBLE_EQ(h2d.time_ms, 0.4);
  EXPECT_DOUBLE_EQ(h2d.gb_per_s, 10.0);
  EXPECT_EQ(h2d.pinned, 1u);
  EXPECT_DOUBLE_EQ(s.copies.at(MemcpyKind::DeviceToHost).gb_per_s, 1.0);
  EXPECT_EQ(s.memset_count, 2u);
  EXPECT_EQ(s.memset_bytes, 8192u);

  const nlohmann::json j = to_json(s);
  EXPECT_DOUBLE_EQ(j["memcpy"]["h2d"]["gb_per_s"].get<double>(), 10.0);
  EXPECT_EQ(j["memcpy"]["h2d"]["bytes"].get<std::uint64_t>(), 4'000'000u);
  EXPECT_EQ(j["memcpy"]["d2h"]["pinned_count"].get<std::size_t>(), 1u);
  EXPECT_FALSE(j["memcpy"].contains("d2d"));
  EXPECT_EQ(j["memset"]["count"].get<std::size_t>(), 2u);
}

TEST(CuptiSummary, IdleGapRunsFromLastKernelOfAStepToFirstKernelOfTheNext) {
  CuptiRecords records;
  const std::vector<StepWindow> steps = {{0, 1'000'000, 2'000'000},
                                         {1, 3'000'000, 4'000'000},
                                         {2, 5'000'000, 6'000'000},
                                         {4, 9'000'000, 10'000'000}};  // step 3 was not measured
  records.kernels.push_back(kernel("k", 1'100'000, 1'800'000));
  records.kernels.push_back(kernel("k", 1'200'000, 1'900'000));  // last end of step 0: 1.9 ms
  records.kernels.push_back(kernel("k", 3'200'000, 3'500'000));  // gap 0 -> 1: 1300 us
  records.kernels.push_back(kernel("k", 5'100'000, 5'200'000));  // gap 1 -> 2: 1600 us
  records.kernels.push_back(kernel("k", 9'100'000, 9'200'000));  // 2 -> 4 not consecutive: no gap
  const CuptiSummary s = summarize_cupti(records, steps, {});
  EXPECT_EQ(s.idle_gap_between_steps_us.count, 2u);
  EXPECT_DOUBLE_EQ(s.idle_gap_between_steps_us.min, 1300.0);
  EXPECT_DOUBLE_EQ(s.idle_gap_between_steps_us.max, 1600.0);
  EXPECT_DOUBLE_EQ(s.idle_gap_between_steps_us.median, 1450.0);
}

TEST(CuptiSummary, StepWithoutKernelsHasNoGapAndZeroBusy) {
  CuptiRecords records;
  records.kernels.push_back(kernel("k", 1'100'000, 1'200'000));
  const CuptiSummary s = summarize_cupti(records, two_steps(), {});
  EXPECT_EQ(s.idle_gap_between_steps_us.count, 0u);
  EXPECT_DOUBLE_EQ(s.gpu_busy_share.min, 0.0);
  EXPECT_DOUBLE_EQ(s.kernels_per_step.min, 0.0);
}

// cuBLAS(Lt), cuDNN and NCCL launch through the driver API (issue 47, finding 7): their
// kernels carry the correlation id of a driver call, not of a runtime call. Only runtime
// calls were collected, so such a kernel, launched in step 0's backward and running after
// step 0's window, was placed by start time: in step 1, a step late. With the driver calls
// it belongs to the step and phase that launched it, as a runtime-launched kernel does.
TEST(CuptiSummary, KernelsLaunchedThroughTheDriverApiBelongToTheirLaunch) {
  CuptiRecords records;
  records.runtime_calls.push_back({211, "cudaLaunchKernel_v7000", 1'100'000, 1'105'000, 1, 21});
  records.kernels.push_back({"elementwise", 1'600'000, 1'700'000, 0, 7, 21});
  records.driver_calls.push_back({307, "cuLaunchKernel", 1'500'000, 1'505'000, 1, 22});
  records.kernels.push_back({"cublasLt_gemm", 3'050'000, 3'350'000, 0, 7, 22});
  const std::vector<PhaseWindow> phases = {{0, Phase::Forward, 1'000'000, 1'400'000},
                                           {0, Phase::Backward, 1'400'000, 1'900'000},
                                           {1, Phase::Forward, 3'000'000, 3'400'000}};
  const CuptiSummary s = summarize_cupti(records, two_steps(), phases);
  EXPECT_EQ(s.kernels_by_start_time, 0u) << "every kernel has its launch call";
  EXPECT_EQ(s.driver_calls_in_steps, 1u);
  EXPECT_DOUBLE_EQ(s.kernel_ms_by_phase[static_cast<std::size_t>(Phase::Backward)].total_ms, 0.3);
  EXPECT_DOUBLE_EQ(s.kernel_ms_by_phase[static_cast<std::size_t>(Phase::Forward)].total_ms, 0.1)
      << "step 1's forward launched nothing";
  EXPECT_DOUBLE_EQ(s.kernels_per_step.max, 2.0) << "both kernels are step 0's";
  EXPECT_DOUBLE_EQ(s.kernels_per_step.min, 0.0);
  EXPECT_EQ(to_json(s)["records"]["driver_calls_in_measured_steps"], 1);
}

TEST(CuptiSummary, ActivityOutsideMeasuredStepsAndUntimedRecordsAreLeftOut) {
  CuptiRecords records;
  records.kernels.push_back(kernel("warmup", 100'000, 200'000));       // before the first step
  records.kernels.push_back(kernel("between", 2'100'000, 2'200'000));  // between the steps
  records.kernels.push_back(kernel("untimed", 0, 0));
  records.kernels.push_back(kernel("in", 1'100'000, 1'200'000));
  records.memcpys.push_back(copy(MemcpyKind::HostToDevice, 100, 2'500'000, 2'600'000, true));
  records.runtime_calls.push_back({211, "cudaLaunchKernel_v7000", 1'050'000, 1'060'000, 1, 5});
  records.runtime_calls.push_back({211, "cudaLaunchKernel_v7000", 50'000, 60'000, 1, 4});
  records.dropped = 3;
  const CuptiSummary s = summarize_cupti(records, two_steps(), {});
  EXPECT_EQ(s.kernels_total, 4u);
  EXPECT_EQ(s.kernels_in_steps, 1u);
  EXPECT_EQ(s.untimed_records, 1u);
  EXPECT_EQ(s.runtime_calls_in_steps, 1u);
  EXPECT_EQ(s.dropped_records, 3u);
  EXPECT_TRUE(s.copies.empty());
  ASSERT_EQ(s.top_kernels.size(), 1u);
  EXPECT_EQ(s.top_kernels[0].name, "in");
}

TEST(CuptiSummary, EmptyInputGivesZerosAndAStableShape) {
  const nlohmann::json j = to_json(summarize_cupti({}, {}, {}));
  EXPECT_EQ(j["measured_steps"], 0);
  EXPECT_EQ(j["gpu_busy_share"]["count"], 0);
  EXPECT_EQ(j["gpu_busy_share_overall"], 0.0);
  EXPECT_TRUE(j["top_kernels"].is_array());
  EXPECT_TRUE(j["top_kernels"].empty());
  for (const char* key : {"h2d", "d2h"}) {
    ASSERT_TRUE(j["memcpy"].contains(key)) << key;
    EXPECT_EQ(j["memcpy"][key]["bytes"], 0);
    EXPECT_EQ(j["memcpy"][key]["gb_per_s"], 0.0);
  }
  for (const char* phase : {"data", "h2d", "forward", "backward", "optimizer", "outside_phases"}) {
    EXPECT_TRUE(j["kernel_ms_by_phase"].contains(phase)) << phase;
  }
  for (const char* key : {"kernels_per_step", "kernel_ms_total", "memset", "idle_gap_between_steps_us", "records"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
}

}  // namespace
}  // namespace gpubench
