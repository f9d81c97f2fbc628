#include "bench/ceilings_distil.h"
#include "harness/ceilings/ceilings_file.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/config/errors.h"

namespace gpubench {
namespace {

using nlohmann::json;

json entry(const std::string& run_name, json fields) {
  fields["name"] = run_name;
  fields["run_name"] = run_name;
  if (!fields.contains("run_type")) fields["run_type"] = "iteration";
  return fields;
}

json aggregate(const std::string& run_name, const std::string& which, json fields) {
  fields["name"] = run_name + "_" + which;
  fields["run_name"] = run_name;
  fields["run_type"] = "aggregate";
  fields["aggregate_name"] = which;
  return fields;
}

// Shaped like Google Benchmark 1.7.1's --benchmark_out_format=json.
json canned_output() {
  json benchmarks = json::array({
      entry("copy/h2d/pinned/bytes:4096/manual_time",
            {{"error_occurred", true}, {"error_message", "no CUDA device: driver too old"}}),
      entry("copy/h2d/pinned/bytes:65536/manual_time",
            {{"error_occurred", true}, {"error_message", "no CUDA device: driver too old"}}),
      entry("copy/d2d/bytes:1073741824/manual_time", {{"bytes_per_second", 3.8e12}}),
      entry("copy/d2d/bytes:4096/manual_time", {{"bytes_per_second", 2.0e9}}),
      entry("matmul/cpu/fp32/n:256/real_time", {{"tflops", 0.01}}),
      entry("matmul/cpu/fp32/n:512/real_time", {{"tflops", 0.02}}),
      // Three repetitions: the median (0.002), not the lucky 0.005.
      entry("matmul/cpu/bf16/n:256/real_time", {{"tflops", 0.001}}),
      entry("matmul/cpu/bf16/n:256/real_time", {{"tflops", 0.005}}),
      entry("matmul/cpu/bf16/n:256/real_time", {{"tflops", 0.002}}),
      // Aggregates only (--benchmark_report_aggregates_only): the median aggregate.
      aggregate("matmul/cuda/bf16/n:8192/manual_time", "mean", {{"tflops", 700.0}}),
      aggregate("matmul/cuda/bf16/n:8192/manual_time", "median", {{"tflops", 650.0}}),
      aggregate("matmul/cuda/bf16/n:8192/manual_time", "stddev", {{"tflops", 90.0}}),
      entry("allreduce/gloo/bytes:4096/manual_time", {{"busbw_gb_per_s", 1.5}, {"algbw_gb_per_s", 1.5}, {"correct", 1}}),
      // Wrong results (even without an error flag) never set a ceiling.
      entry("allreduce/gloo/bytes:65536/manual_time", {{"busbw_gb_per_s", 9.0}, {"algbw_gb_per_s", 9.0}, {"correct", 0}}),
      entry("allreduce/nccl/bytes:4096/manual_time", {{"busbw_gb_per_s", 50.0}, {"algbw_gb_per_s", 25.0}, {"correct", 0}}),
      // All-gather and reduce-scatter as all-reduce: the best correct size, never a wrong one.
      entry("allgather/gloo/bytes:4096/manual_time", {{"busbw_gb_per_s", 0.4}, {"algbw_gb_per_s", 0.8}, {"correct", 1}}),
      entry("allgather/gloo/bytes:65536/manual_time", {{"busbw_gb_per_s", 1.1}, {"algbw_gb_per_s", 2.2}, {"correct", 1}}),
      entry("reducescatter/gloo/bytes:4096/manual_time", {{"busbw_gb_per_s", 0.3}, {"algbw_gb_per_s", 0.6}, {"correct", 1}}),
      entry("reducescatter/gloo/bytes:65536/manual_time", {{"busbw_gb_per_s", 7.0}, {"algbw_gb_per_s", 14.0}, {"correct", 0}}),
      entry("reducescatter/nccl/bytes:4096/manual_time",
            {{"error_occurred", true}, {"error_message", "reduce-scatter results wrong: 3 elements differ"}}),
      entry("loader/mlp/workers:0/real_time", {{"items_per_second", 1000.0}}),
      entry("loader/mlp/workers:2/real_time", {{"items_per_second", 3000.0}}),
      entry("train_step/cpu/mlp/real_time", {{"items_per_second", 20000.0}}),
      // 1.8+ SkipWithMessage.
      entry("train_step/cuda/mlp/real_time", {{"skipped", true}, {"skip_message", "no CUDA device: none"}}),
      entry("something/new/arg:1", {{"items_per_second", 5.0}}),
  });
  return {{"context", {{"host_name", "testhost"}, {"num_cpus", 2}}}, {"benchmarks", benchmarks}};
}

TEST(DistilCeilings, TakesTheBestSizeOfEachMedianAndSaysWhereItCameFrom) {
  const json c = distil_ceilings(canned_output());
  EXPECT_EQ(c["format"], "gpubench-ceilings");
  EXPECT_EQ(c["format_version"], 1);
  EXPECT_EQ(c["source"], "gpubench-bench");
  EXPECT_EQ(c["context"]["host_name"], "testhost");
  EXPECT_DOUBLE_EQ(c["d2d_gb_per_s"].get<double>(), 3800.0);
  EXPECT_EQ(c["from"]["d2d_gb_per_s"], "copy/d2d/bytes:1073741824/manual_time");
  EXPECT_DOUBLE_EQ(c["matmul_tflops"]["cpu"]["fp32"].get<double>(), 0.02);
  EXPECT_DOUBLE_EQ(c["matmul_tflops"]["cpu"]["bf16"].get<double>(), 0.002);
  EXPECT_DOUBLE_EQ(c["matmul_tflops"]["cuda"]["bf16"].get<double>(), 650.0);
  EXPECT_DOUBLE_EQ(c["loader_samples_per_s"]["mlp"]["0"].get<double>(), 1000.0);
  EXPECT_DOUBLE_EQ(c["loader_samples_per_s"]["mlp"]["2"].get<double>(), 3000.0);
  EXPECT_DOUBLE_EQ(c["train_step_samples_per_s"]["cpu"]["mlp"].get<double>(), 20000.0);
  EXPECT_NO_THROW(validate_ceilings(c, "distilled"));
}

TEST(DistilCeilings, WrongAllReduceResultsNeverSetACeiling) {
  const json c = distil_ceilings(canned_output());
  EXPECT_DOUBLE_EQ(c["allreduce_busbw_gb_per_s"]["gloo"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(c["allreduce_algbw_gb_per_s"]["gloo"].get<double>(), 1.5);
  EXPECT_FALSE(c["allreduce_busbw_gb_per_s"].contains("nccl"));
  EXPECT_NE(c["skipped"]["allreduce_busbw_gb_per_s.nccl"].get<std::string>().find("wrong"), std::string::npos);
  // A skipped size does not hide a good one of the same key.
  EXPECT_FALSE(c["skipped"].contains("allreduce_busbw_gb_per_s.gloo"));
}

TEST(DistilCeilings, AllGatherAndReduceScatterHaveCeilingsOfTheirOwnShapedAsAllReduces) {
  const json c = distil_ceilings(canned_output());
  EXPECT_DOUBLE_EQ(c["allgather_busbw_gb_per_s"]["gloo"].get<double>(), 1.1);
  EXPECT_DOUBLE_EQ(c["allgather_algbw_gb_per_s"]["gloo"].get<double>(), 2.2);
  EXPECT_EQ(c["from"]["allgather_busbw_gb_per_s.gloo"], "allgather/gloo/bytes:65536/manual_time");
  // The wrong 64 KiB run (7.0) is not the ceiling; the correct 4 KiB one is.
  EXPECT_DOUBLE_EQ(c["reducescatter_busbw_gb_per_s"]["gloo"].get<double>(), 0.3);
  EXPECT_DOUBLE_EQ(c["reducescatter_algbw_gb_per_s"]["gloo"].get<double>(), 0.6);
  EXPECT_FALSE(c["reducescatter_busbw_gb_per_s"].contains("nccl"));
  EXPECT_EQ(c["skipped"]["reducescatter_busbw_gb_per_s.nccl"], "reduce-scatter results wrong: 3 elements differ");
  // The all-reduce ceilings are where they were.
  EXPECT_DOUBLE_EQ(c["allreduce_busbw_gb_per_s"]["gloo"].get<double>(), 1.5);
  EXPECT_NO_THROW(validate_ceilings(c, "distilled"));
}

TEST(DistilCeilings, AWrongCollectiveResultNamesItsRun) {
  json output = canned_output();
  output["benchmarks"] = json::array(
      {entry("allgather/gloo/bytes:4096/manual_time", {{"busbw_gb_per_s", 0.4}, {"algbw_gb_per_s", 0.8}, {"correct", 0}})});
  const json c = distil_ceilings(output);
  EXPECT_FALSE(c.contains("allgather_busbw_gb_per_s"));
  EXPECT_EQ(c["skipped"]["allgather_busbw_gb_per_s.gloo"], "allgather results were wrong in allgather/gloo/bytes:4096/manual_time");
}

TEST(DistilCeilings, SkippedBenchmarksLeaveTheirReasonAndNoNumber) {
  const json c = distil_ceilings(canned_output());
  EXPECT_FALSE(c.contains("h2d_pinned_gb_per_s"));
  EXPECT_EQ(c["skipped"]["h2d_pinned_gb_per_s"], "no CUDA device: driver too old");
  EXPECT_EQ(c["skipped"]["train_step_samples_per_s.cuda.mlp"], "no CUDA device: none");
  EXPECT_FALSE(c.contains("something"));  // unknown benchmarks are ignored
}

TEST(DistilCeilings, RejectsWhatIsNotGoogleBenchmarkOutput) {
  EXPECT_THROW(distil_ceilings(json::array()), UsageError);
  EXPECT_THROW(distil_ceilings(json{{"benchmarks", 3}}), UsageError);
  EXPECT_NO_THROW(distil_ceilings(json{{"benchmarks", json::array()}}));
}

// What distil writes, the reader takes back unchanged.
TEST(DistilCeilings, WhatItWritesLoadsBackUnchanged) {
  char pattern[] = "/tmp/gpubench-ceilings-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string path = std::string(pattern) + "/ceilings.json";
  const json c = distil_ceilings(canned_output());
  write_ceilings(path, c);
  EXPECT_EQ(load_ceilings(path), c);
  std::system(("rm -rf '" + std::string(pattern) + "'").c_str());
}

}  // namespace
}  // namespace gpubench
