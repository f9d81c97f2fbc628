// gpubench-bench's train_step benchmarks meet the same up-front memory check as the matrix:
// in a 1.5 GiB memory cgroup (root, else skipped saying why) train_step/cpu/llama (~48 GiB by
// its estimate) is skipped with the estimate, where it grew until the OOM killer ended the
// whole run (on a 24 GiB machine, 23.8 GB before the kernel's global OOM killer took it).
// Run only inside the cgroup: on the old code the kill must take the cgroup, not the machine.
#include <gtest/gtest.h>

#include <string>

#include "support/memory_cgroup.h"
#include "support/run_command.h"

namespace gpubench {
namespace {

TEST(TrainStepMemory, AWorkloadThatDoesNotFitIsSkippedWithItsEstimate) {
  test_support::TestMemoryCgroup cgroup(test_support::kTestCgroupLimit);
  if (!cgroup.ready()) GTEST_SKIP() << cgroup.why_not();
  const auto run = test_support::run_command(cgroup.inside(
      "timeout 600 " + std::string(GPUBENCH_BENCH_BINARY) +
      " --benchmark_filter=\"^train_step/cpu/(llama|mlp)/\" --benchmark_min_time=0.01 --benchmark_format=json"));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("skipped, as the matrix skips llama/cpu/fp32: needs ~"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("GiB of host memory (weights, gradients and Adam state"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("(the cgroup's memory limit less its usage)"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("\"name\": \"train_step/cpu/mlp/real_time\""), std::string::npos) << "the next benchmark runs: " << run.output;
}

}  // namespace
}  // namespace gpubench
