#include "harness/parallel/comm_stats.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

TEST(CommStats, QueuedBucketsAreCountedOnceAndSplitIntoHiddenAndExposed) {
  StepComm step;
  step.backward_ms = 10;
  step.finish_ms = 14;
  step.collectives = {{4, 8}, {6, 12}, {13, 13.5}};  // two overlapping, one after backward
  EXPECT_DOUBLE_EQ(step.comm_ms(), 8 + 0.5);      // [4,12] and [13,13.5]
  EXPECT_DOUBLE_EQ(step.hidden_ms(), 6);          // [4,10]
  EXPECT_DOUBLE_EQ(step.exposed_ms(), 4);
}

TEST(CommStats, RecorderKeepsMeasuredStepsAndTheMergePoolsRanks) {
  CommRecorder recorder;
  StepComm step;
  step.backward_ms = 10;
  step.finish_ms = 12;
  step.collectives = {{5, 11}};
  recorder.step_begin(0, false);
  recorder.record(step);  // warm-up: ignored
  recorder.step_begin(1, true);
  recorder.record(step);
  const auto samples = recorder.samples();
  EXPECT_EQ(samples["steps"], 1);
  nlohmann::json rank0 = {{"rank", 0}, {"step_ms", {20.0}}, {"samples", samples}};
  nlohmann::json rank1 = {{"rank", 1}, {"step_ms", {20.0}}, {"samples", samples}};
  const auto merged = merge_rank_stats({rank0, rank1});
  EXPECT_EQ(merged["comm_ms"]["count"], 2);
  EXPECT_DOUBLE_EQ(merged["comm_ms"]["median"].get<double>(), 6);
  EXPECT_DOUBLE_EQ(merged["overlap_share"].get<double>(), 5.0 / 6.0);
  EXPECT_DOUBLE_EQ(merged["comm_share_of_step"].get<double>(), 6.0 / 20.0);
  EXPECT_DOUBLE_EQ(merged["exposed_comm_share"].get<double>(), 2.0 / 20.0);
  ASSERT_EQ(merged["per_rank"].size(), 2u);
  EXPECT_EQ(merged["per_rank"][1]["rank"], 1);
  EXPECT_FALSE(merged["per_rank"][1].contains("samples")) << "raw samples stay out of the report";
  EXPECT_DOUBLE_EQ(merged["per_rank"][1]["bucket_comm_ms_median"][0].get<double>(), 6);
}

// On NCCL the host only sees when it waited: at the end of backward that is mostly the
// GPU's unfinished compute, so a collective's time is its kernel's on NCCL's stream
// (NCCL's own events). One stream runs them one after another: comm_ms is their sum, and
// what was hidden is not known (the compute stream's waits are not measured): null, not 0.
TEST(CommStats, DeviceTimedCollectivesCountTheirKernelsAndLeaveTheOverlapUnknown) {
  StepComm step;
  step.backward_ms = 10;
  step.finish_ms = 40;
  // Host intervals as a host wait at the step's end makes them: long, ending together.
  step.collectives = {{2, 40, CollectiveKind::AllGather, 100, 0, 0.25}, {12, 40, CollectiveKind::ReduceScatter, 100, 0, 0.5}};
  EXPECT_TRUE(step.device_timed());
  EXPECT_DOUBLE_EQ(step.comm_ms(), 0.75);
  EXPECT_LT(step.hidden_ms(), 0);
  CommRecorder recorder;
  recorder.step_begin(0, true);
  recorder.record(step);
  const nlohmann::json rank = {{"rank", 0}, {"step_ms", {50.0}}, {"samples", recorder.samples()}};
  const auto merged = merge_rank_stats({rank});
  EXPECT_DOUBLE_EQ(merged["comm_ms"]["median"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(merged["comm_share_of_step"].get<double>(), 0.75 / 50);
  EXPECT_TRUE(merged["overlap_share"].is_null());
  EXPECT_TRUE(merged["per_rank"][0]["overlap_share"].is_null());
  EXPECT_DOUBLE_EQ(merged["per_rank"][0]["bucket_comm_ms_median"][1].get<double>(), 0.5) << "each collective's device time";
  // One collective without its events: the step falls back to the host intervals.
  step.collectives[1].device_ms = -1;
  EXPECT_FALSE(step.device_timed());
  EXPECT_DOUBLE_EQ(step.comm_ms(), 38);
}

}  // namespace
}  // namespace gpubench
