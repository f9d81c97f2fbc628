// gpubench in a real memory cgroup, as a CI job or a container runs it: the kernel's OOM
// killer takes a config's child, and a config's estimate meets the cgroup's limit. Needs a
// memory hierarchy this process may create a child cgroup in (root on this project's VMs,
// cgroup v1's or v2's); skipped elsewhere, saying why.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/memory_cgroup.h"
#include "support/report_json.h"
#include "support/run_command.h"

namespace gpubench {
namespace {

using test_support::TestMemoryCgroup;

constexpr std::uint64_t kLimit = test_support::kTestCgroupLimit;

TEST(MemoryCgroup, AConfigTheOomKillerTakesIsAFailedRowSayingOutOfMemory) {
  TestMemoryCgroup cgroup(kLimit);
  if (!cgroup.ready()) GTEST_SKIP() << cgroup.why_not();
  const std::string dir = test_support::make_temp_dir("oom");
  // resnet50 at 64 images needs ~7 GB of activations (it has no estimate to refuse it up
  // front), one process or a DDP rank; the last config shows the matrix goes on.
  const auto run = test_support::run_command(cgroup.inside(
      std::string(GPUBENCH_EXE) + " --matrix resnet50/cpu/fp32,resnet50/cpu/fp32/ddp-2,mlp/cpu/fp32 --batch-size 64 "
                                  "--preset quick --steps 2 --warmup 1 --threads 1 --format table --out " + dir + "/r.json"));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  const auto report = test_support::read_json(dir + "/r.json");
  ASSERT_EQ(report["results"].size(), 3u) << run.output;
  for (const std::size_t killed : {0u, 1u}) {
    const auto& row = report["results"][killed];
    EXPECT_EQ(row["status"], "failed") << row.dump(1);
    const std::string reason = row.value("reason", "");
    const std::string said = "child process out of memory: killed by the kernel's OOM killer";
    if (killed == 0) EXPECT_EQ(reason.rfind(said, 0), 0u) << reason;
    else EXPECT_NE(reason.find(" of 2: " + said), std::string::npos) << reason;  // "rank R of 2: " first
    EXPECT_NE(reason.find("a smaller --batch-size may fit"), std::string::npos) << reason;
  }
  EXPECT_EQ(report["results"][2]["status"], "ok") << report["results"][2].dump(1);
}

TEST(MemoryCgroup, AnEstimateOverWhatTheCgroupLeavesIsSkippedUpFront) {
  for (const bool nested : {false, true}) {
  SCOPED_TRACE(nested ? "a limit on the cgroup above" : "the process's own cgroup's limit");
  TestMemoryCgroup cgroup(kLimit, nested);
  if (!cgroup.ready()) GTEST_SKIP() << cgroup.why_not();
  const std::string dir = test_support::make_temp_dir("oom");
  // ~4.3 GiB by transformer's estimate: under this machine's MemAvailable, over the cgroup.
  const auto run = test_support::run_command(cgroup.inside(std::string(GPUBENCH_EXE) +
                                                           " --matrix transformer/cpu/fp32 --batch-size 256 --steps 2 "
                                                           "--warmup 1 --threads 1 --format table --out " + dir + "/r.json"));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  const auto row = test_support::read_json(dir + "/r.json")["results"][0];
  EXPECT_EQ(row["status"], "skipped") << row.dump(1);
  const std::string source = nested ? "(the memory limit of the cgroup above it, '" : "(the cgroup's memory limit less its usage)";
  EXPECT_NE(row.value("reason", "").find(source), std::string::npos) << row.dump(1);
  }
}

}  // namespace
}  // namespace gpubench
