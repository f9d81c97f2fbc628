// scripts/nsys-profile.sh under the real Nsight Systems CLI (2022.4, scripts/install-nsys.sh):
// a CPU matrix of two configs is profiled, `nsys stats` (nvtxpptrace, nvtxsum) is read back
// and held against gpubench's own report: what a user opening the profile looks for.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/run_command.h"

namespace gpubench {
namespace {

const std::set<std::string> kPhases = {"data", "h2d", "forward", "backward", "optimizer"};

// One row of `nsys stats --report nvtxpptrace --format csv`.
struct NvtxRange {
  std::string name;  // "domain:message"
  double ms = 0;
  std::string pid, id, parent;
};

std::vector<NvtxRange> read_pptrace(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,ParentId,...
  EXPECT_EQ(line.rfind("Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,ParentId", 0), 0u)
      << path << ": " << line;
  std::vector<NvtxRange> ranges;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) f.push_back(field);
    if (f.size() < 12) continue;
    ranges.push_back({f[5], std::stod(f[2]) / 1e6, f[6], f[10], f[11]});
  }
  return ranges;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n == 0 ? 0 : (n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2);
}

struct Profiled {
  test_support::CommandResult command;
  std::string dir;
};

Profiled profile(const std::string& name, const std::string& extra_args) {
  const std::string dir = test_support::make_temp_dir("nsys");
  const std::string command = "NSYS=" GPUBENCH_NSYS " GPUBENCH=" GPUBENCH_EXE " " GPUBENCH_SOURCE_DIR
                              "/scripts/nsys-profile.sh --timeout 240 --out-dir " + dir + " --name " + name +
                              " -- --matrix mlp/cpu/fp32,mlp/cpu/bf16 --steps 6 --warmup 1 --threads 1" + extra_args;
  return {test_support::run_command(command), dir};
}

class NsysProfile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(GPUBENCH_NSYS))
      FAIL() << "no nsys at " GPUBENCH_NSYS ": scripts/setup.sh installs it (scripts/install-nsys.sh)";
  }
};

// Every range in the gpubench domain; per config process one run range named by its id,
// as many step ranges as the report says it ran, five phases under each step, and each
// phase's median within 5% + 0.3 ms of the report's (NVTX ranges sit inside the timer's
// interval: the difference is the probes' own cost and the sync after each phase).
TEST_F(NsysProfile, RangesMatchTheReportConfigByConfig) {
  const Profiled run = profile("two", "");
  ASSERT_EQ(run.command.exit_code, 0) << run.command.output;
  EXPECT_NE(run.command.output.find("two.nsys-rep (open in the Nsight Systems GUI)"), std::string::npos) << run.command.output;
  EXPECT_NE(run.command.output.find("gpubench:backward"), std::string::npos) << "nvtxsum table printed: " << run.command.output;
  std::ifstream report_file(run.dir + "/two.json");
  const nlohmann::json report = nlohmann::json::parse(report_file);
  const auto ranges = read_pptrace(run.dir + "/two_nvtxpptrace.csv");
  ASSERT_FALSE(ranges.empty()) << run.command.output;
  std::map<std::string, const NvtxRange*> by_id;
  std::map<std::string, std::string> run_of_pid;  // pid -> config id
  for (const auto& range : ranges) {
    EXPECT_EQ(range.name.rfind("gpubench:", 0), 0u) << range.name;
    by_id[range.pid + "/" + range.id] = &range;
    if (range.parent == "None") {
      EXPECT_EQ(run_of_pid.count(range.pid), 0u) << "one run range per config process";
      run_of_pid[range.pid] = range.name.substr(9);
    }
  }
  ASSERT_EQ(run_of_pid.size(), 2u);
  for (const auto& row : report["results"]) {
    const std::string id = row["config_id"];
    SCOPED_TRACE(id);
    std::string pid;
    for (const auto& [p, config] : run_of_pid)
      if (config == id) pid = p;
    ASSERT_FALSE(pid.empty()) << "no run range named " << id;
    int steps = 0, warmup_steps = 0;
    std::map<std::string, std::vector<double>> phase_ms;
    std::map<std::string, int> phases_under;
    for (const auto& range : ranges) {
      if (range.pid != pid || range.parent == "None") continue;
      const std::string name = range.name.substr(9);
      const NvtxRange* parent = by_id.at(pid + "/" + range.parent);
      if (name == "step") ++steps;
      if (name == "warmup step") ++warmup_steps;
      if (kPhases.count(name)) {
        const std::string parent_name = parent->name.substr(9);
        ASSERT_TRUE(parent_name == "step" || parent_name == "warmup step") << name << " under " << parent_name;
        ++phases_under[range.parent];
        if (parent_name == "step") phase_ms[name].push_back(range.ms);
      }
    }
    EXPECT_EQ(steps, row["steps"]["measured"].get<int>());
    EXPECT_EQ(warmup_steps, row["steps"]["warmup"].get<int>());
    for (const auto& [step, count] : phases_under) EXPECT_EQ(count, 5) << "phases under range " << step;
    for (const auto& phase : kPhases) {
      const double reported = row["phases"][phase]["median_ms"];
      EXPECT_NEAR(median(phase_ms[phase]), reported, 0.05 * reported + 0.3) << phase;
    }
  }
}

// --profile-steps 2:3: one capture per config (profile-steps@gpubench), each holding
// exactly steps 2 and 3 with their phases.
TEST_F(NsysProfile, ProfileStepsNarrowTheCaptureOnTheCpu) {
  const Profiled run = profile("window", " --profile-steps 2:3");
  ASSERT_EQ(run.command.exit_code, 0) << run.command.output;
  for (const std::string n : {"1", "2"}) {
    SCOPED_TRACE("capture " + n);
    const auto ranges = read_pptrace(run.dir + "/window." + n + "_nvtxpptrace.csv");
    int windows = 0, steps = 0, phases = 0;
    for (const auto& range : ranges) {
      windows += range.name == "gpubench:profile-steps";
      steps += range.name == "gpubench:step";
      phases += kPhases.count(range.name.substr(9)) > 0;
    }
    EXPECT_EQ(windows, 1);
    EXPECT_EQ(steps, 3 - 2 + 1);
    EXPECT_EQ(phases, 2 * 5);
  }
  EXPECT_FALSE(std::filesystem::exists(run.dir + "/window.3.nsys-rep")) << "two configs, two captures";
}

}  // namespace
}  // namespace gpubench
