// End to end (issue 60): a real gpubench run of a small CPU config beside a CPU hog this test
// starts (one spinning process per online CPU) and stops by its pids. The row's interference
// figure passes the threshold, its warning is in the row, the table and the verdict; the same
// config without the hog carries the figure too. No timing assertions: the hog's share is
// the scheduler's arithmetic (N spinning processes against the config's one thread take
// about N/(N+1) of N CPUs, two thirds or more, where the threshold is a quarter), and the
// quiet run is only held to what it must say, as this machine may be busy with other work.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/report_json.h"
#include "support/run_command.h"
#include "support/schema_validation.h"

namespace gpubench {
namespace {

// One process per online CPU spinning until killed: they die with this test, too.
class CpuHog {
 public:
  explicit CpuHog(unsigned processes) {
    for (unsigned i = 0; i < processes; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        volatile unsigned long spin = 0;
        for (;;) spin = spin + 1;
      }
      if (pid > 0) pids_.push_back(pid);
    }
  }
  ~CpuHog() {
    for (const pid_t pid : pids_) kill(pid, SIGKILL);
    for (const pid_t pid : pids_) waitpid(pid, nullptr, 0);
  }
  std::size_t size() const { return pids_.size(); }

 private:
  std::vector<pid_t> pids_;
};

struct MlpRun {
  test_support::CommandResult command;
  nlohmann::json row;
};

// mlp/cpu/fp32 on one intra-op thread for enough steps (about half a second on a quiet
// machine) that the window holds more of /proc/stat's ticks than kMinJudgedWindowS asks.
MlpRun run_mlp(const std::string& dir, const std::string& name) {
  MlpRun run;
  const std::string out = dir + "/" + name + ".json";
  run.command = test_support::run_command(std::string("CUDA_VISIBLE_DEVICES= ") + GPUBENCH_EXE +
                                          " --matrix mlp/cpu/fp32 --preset quick --steps 40 --warmup 2 --batch-size 32 --threads 1"
                                          " --format table --out " + out);
  if (run.command.exit_code != 0) return run;
  const auto report = test_support::read_json(out);
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  if (const auto* row = test_support::find_row(report, "mlp/cpu/fp32")) run.row = *row;
  return run;
}

double share_of(const nlohmann::json& row, const char* key) {
  const auto& value = row.value("interference", nlohmann::json::object()).value(key, nlohmann::json());
  return value.is_number() ? value.get<double>() : -1;
}

TEST(InterferenceRun, AHogBesideTheConfigIsMeasuredAndWarned) {
  const std::string dir = test_support::make_temp_dir("interference");
  MlpRun busy;
  unsigned hogs = 0;
  {
    CpuHog hog(std::max(1u, std::thread::hardware_concurrency()));
    hogs = static_cast<unsigned>(hog.size());
    busy = run_mlp(dir, "hog");
  }
  ASSERT_GE(hogs, 1u) << "fork failed";
  ASSERT_EQ(busy.command.exit_code, 0) << busy.command.output;
  ASSERT_EQ(busy.row.value("status", ""), "ok") << busy.row.dump();
  const auto& interference = busy.row["interference"];
  std::cout << "with " << hogs << " hog process(es): " << interference.dump() << "\n";
  EXPECT_TRUE(interference["judged"].get<bool>()) << interference.dump();
  EXPECT_GT(share_of(busy.row, "other_cpu_share"), interference["thresholds"]["other_cpu_share"].get<double>());
  ASSERT_TRUE(interference["warning"].is_string()) << interference.dump();
  const std::string warning = interference["warning"];
  EXPECT_NE(warning.find("other processes took"), std::string::npos) << warning;
  const auto& warnings = busy.row["warnings"];
  EXPECT_NE(std::find(warnings.begin(), warnings.end(), warning), warnings.end()) << warnings.dump();
  EXPECT_EQ(busy.row["verdict"]["kind"], "disturbed") << busy.row["verdict"].dump();
  EXPECT_NE(busy.command.output.find("warning: other processes took"), std::string::npos) << busy.command.output;

  const MlpRun quiet = run_mlp(dir, "quiet");
  ASSERT_EQ(quiet.command.exit_code, 0) << quiet.command.output;
  std::cout << "without the hog: " << quiet.row["interference"].dump() << "\n";
  const double other = share_of(quiet.row, "other_cpu_share");
  EXPECT_GE(other, 0.0) << quiet.row["interference"].dump();
  EXPECT_LE(other, 1.0);
  // Whatever else runs here, the warning says what the figure says.
  const bool over = quiet.row["interference"]["judged"].get<bool>() &&
                    other > quiet.row["interference"]["thresholds"]["other_cpu_share"].get<double>();
  EXPECT_EQ(quiet.row["interference"]["warning"].is_string(), over) << quiet.row["interference"].dump();
  EXPECT_EQ(quiet.row["verdict"]["kind"] == "disturbed", quiet.row["interference"]["disturbed"].get<bool>());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpubench
