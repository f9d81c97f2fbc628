// gpubench in a real memory cgroup, as a CI job or a container runs it: the kernel's OOM
// killer takes a config's child, and a config's estimate meets the cgroup's limit. Needs a
// memory hierarchy this process may create a child cgroup in (root on this project's VMs,
// cgroup v1's or v2's); skipped elsewhere, saying why.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/device/host_memory_limit.h"
#include "support/report_json.h"
#include "support/run_command.h"

namespace gpubench {
namespace {

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream file(path);
  file << text;
  file.flush();
  return static_cast<bool>(file);
}

// A child memory cgroup of this process's own, with `limit_bytes` and no swap beyond it;
// removed at the end of the test. `nested`: the processes run in a cgroup below it that
// sets no limit of its own (a job inside a limited slice).
class TestMemoryCgroup {
 public:
  explicit TestMemoryCgroup(std::uint64_t limit_bytes, bool nested = false) {
    std::ifstream self("/proc/self/cgroup");
    std::stringstream text;
    text << self.rdbuf();
    const auto own = memory_cgroup_files(text.str());
    if (!own) {
      why_not_ = "no memory cgroup hierarchy found in /proc/self/cgroup";
      return;
    }
    dir_ = own->dir + "/gpubench-test-" + std::to_string(getpid());
    if (mkdir(dir_.c_str(), 0755) != 0) {
      why_not_ = "cannot create " + dir_ + " (not root, or a read-only hierarchy)";
      dir_.clear();
      return;
    }
    const std::string limit = std::to_string(limit_bytes);
    const bool limited = own->version == 1 ? write_file(dir_ + "/memory.limit_in_bytes", limit)
                                           : write_file(dir_ + "/memory.max", limit);
    if (!limited) {
      why_not_ = "cannot set a memory limit in " + dir_;
      return;
    }
    // Swap would turn the OOM kill into a crawl: none beyond the limit, where settable.
    if (own->version == 1) write_file(dir_ + "/memory.memsw.limit_in_bytes", limit);
    else write_file(dir_ + "/memory.swap.max", "0");
    if (nested) {
      // v2 lets processes into the inner folder only when the outer one hands it the memory controller.
      if (own->version == 2) write_file(dir_ + "/cgroup.subtree_control", "+memory");
      inner_ = dir_ + "/job";
      if (mkdir(inner_.c_str(), 0755) != 0) {
        why_not_ = "cannot create " + inner_;
        inner_.clear();
        return;
      }
    }
    // cgroup v2 refuses processes in a folder whose parent delegates no controllers to it.
    if (test_support::run_command(inside("true")).exit_code != 0) {
      why_not_ = "cannot move a process into " + dir_;
      return;
    }
    ready_ = true;
  }
  ~TestMemoryCgroup() {
    // Its processes have exited; the kernel may take a moment to let the folders go.
    for (const std::string& dir : {inner_, dir_})
      for (int attempt = 0; !dir.empty() && attempt < 50 && rmdir(dir.c_str()) != 0; ++attempt)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  bool ready() const { return ready_; }
  const std::string& why_not() const { return why_not_; }
  // The command line, run by a shell that first moves itself into the cgroup.
  std::string inside(const std::string& command) const {
    return "sh -c 'echo $$ > " + (inner_.empty() ? dir_ : inner_) + "/cgroup.procs && exec " + command + "'";
  }

 private:
  std::string dir_, inner_, why_not_;
  bool ready_ = false;
};

constexpr std::uint64_t kLimit = 1536ULL << 20;

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
