// NvtxProbe checked through a real NVTX tool: the test injection library
// (nvtx_recorder_injection.cpp) is loaded by NVTX itself, exactly as Nsight Systems'
// injection is, and logs every push/pop. No GPU or driver is involved.
//
// End-to-end reuse for the real binary: run gpubench with the same two variables,
//   NVTX_INJECTION64_PATH=$<TARGET_FILE:gpubench_nvtx_recorder>
//   GPUBENCH_NVTX_LOG=<fresh file>
// e.g. add_test(NAME ... COMMAND ${CMAKE_COMMAND} -E env NVTX_INJECTION64_PATH=... GPUBENCH_NVTX_LOG=...
// $<TARGET_FILE:gpubench> ...), then read the file with nvtx_log.h: read_nvtx_log(),
// ranges_in_domain(events, "gpubench") for the names, ranges_balanced(events) for
// nesting. Child processes (DDP ranks) inherit the environment and append to the same
// file; split their lines by pid. The variables must be set before the process's first
// NVTX call, since NVTX looks for its tool only once.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "nvtx_log.h"
#include "harness/profile/nvtx_probe.h"
#include "harness/profile/profile_steps_range.h"

namespace gpubench {
namespace {

using test_support::NvtxLogEvent;
using Ranges = std::vector<std::pair<std::string, std::string>>;

// Points NVTX at the recorder before any test runs (NVTX initialises once per process, at
// its first call), with a log file of this process's own.
std::string g_log_path;
class NvtxRecorderEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    g_log_path = ::testing::TempDir() + "gpubench_nvtx_" + std::to_string(::getpid()) + ".log";
    std::remove(g_log_path.c_str());
    ::setenv("NVTX_INJECTION64_PATH", GPUBENCH_NVTX_RECORDER, 1);
    ::setenv("GPUBENCH_NVTX_LOG", g_log_path.c_str(), 1);
  }
  // Keep the log for a failed run (it is the evidence), drop it otherwise.
  void TearDown() override {
    if (!g_log_path.empty() && ::testing::UnitTest::GetInstance()->Passed()) std::remove(g_log_path.c_str());
  }
};
[[maybe_unused]] ::testing::Environment* const g_environment =
    ::testing::AddGlobalTestEnvironment(new NvtxRecorderEnvironment);

// Log events written since `from` (tests in one process share the log).
std::vector<NvtxLogEvent> events_since(std::size_t from) {
  auto events = test_support::read_nvtx_log(g_log_path);
  return {events.begin() + static_cast<std::ptrdiff_t>(std::min(from, events.size())), events.end()};
}

// A fake run as the Trainer drives it: steps numbered from 0, the first `warmup` unmeasured.
void drive(Probe& probe, const std::string& config_id, int warmup, int measured) {
  probe.run_begin(config_id);
  for (int step = 0; step < warmup + measured; ++step) {
    const bool is_measured = step >= warmup;
    probe.step_begin(step, is_measured);
    for (Phase phase : kAllPhases) {
      probe.phase_begin(phase);
      probe.phase_end(phase);
    }
    probe.step_end(step, is_measured);
  }
  probe.run_end();
}

// Stable names, so Nsight can total a phase over steps (nvtxsum groups by name).
TEST(NvtxNames, AreStableAcrossStepsAndConfigs) {
  EXPECT_STREQ(nvtx_step_range_name(true), "step");
  EXPECT_STREQ(nvtx_step_range_name(false), "warmup step");
  EXPECT_STREQ(nvtx_phase_range_name(Phase::Backward), "backward");
  EXPECT_STREQ(nvtx_phase_range_name(Phase::H2D), "h2d");
  EXPECT_NE(nvtx_phase_color(Phase::Forward), nvtx_phase_color(Phase::Backward));
}

// The run as the Trainer nests it: run > step > phase, for `steps` steps, the first `warmup` unmeasured.
Ranges expected_ranges(const std::string& id, int warmup, int steps) {
  Ranges expected = {{"push", id}};
  for (int step = 0; step < steps; ++step) {
    const std::string step_name = nvtx_step_range_name(step >= warmup);
    expected.emplace_back("push", step_name);
    for (Phase phase : kAllPhases) {
      expected.emplace_back("push", nvtx_phase_range_name(phase));
      expected.emplace_back("pop", nvtx_phase_range_name(phase));
    }
    expected.emplace_back("pop", step_name);
  }
  expected.emplace_back("pop", id);
  return expected;
}

TEST(NvtxProbe, RecordsNestedRunStepAndPhaseRangesInTheGpubenchDomain) {
  const std::size_t before = test_support::read_nvtx_log(g_log_path).size();

  const std::string id = "cnn/cuda/amp-bf16/pinned";
  NvtxProbe probe;
  drive(probe, id, /*warmup=*/2, /*measured=*/3);

  const Ranges expected = expected_ranges(id, 2, 5);
  const auto events = events_since(before);
  ASSERT_FALSE(events.empty()) << "no NVTX events in " << g_log_path << ": the recorder was not loaded";
  EXPECT_EQ(test_support::ranges_in_domain(events, kNvtxDomainName), expected);
  EXPECT_TRUE(test_support::ranges_balanced(events));
  // Spot-check the literal names, independent of the helpers that built `expected`.
  EXPECT_EQ(expected[1].second, "warmup step");
  // 12 entries per step: push step, 5 x (push, pop) phase, pop step.
  EXPECT_EQ(expected[1 + 2 * 12], std::make_pair(std::string("push"), std::string("step")));
  EXPECT_EQ(expected[1 + 2 * 12 + 7], std::make_pair(std::string("push"), std::string("backward")));
  for (const auto& e : events) {
    if (e.event == "push" || e.event == "pop") {
      EXPECT_EQ(e.domain, "gpubench") << e.event << " " << e.message;
    }
    EXPECT_EQ(e.pid, ::getpid());
  }
}

// --profile-steps 1:2 wraps steps 1 and 2 in "profile-steps" (a registered string, what
// nsys --capture-range=nvtx matches), outside the step ranges: ProfileStepsRange goes first.
TEST(NvtxProbe, ProfileStepsRangeEnclosesExactlyItsSteps) {
  const std::size_t before = test_support::read_nvtx_log(g_log_path).size();
  const std::string id = "mlp/cpu/fp32";
  ProbeSet probes;
  probes.add(std::make_shared<ProfileStepsRange>(parse_profile_steps("1:2")));
  probes.add(std::make_shared<NvtxProbe>());
  drive(probes, id, /*warmup=*/1, /*measured=*/3);

  Ranges expected = expected_ranges(id, 1, 4);
  const std::size_t per_step = 12;
  expected.insert(expected.begin() + 1 + 3 * per_step, {"pop", "profile-steps"});
  expected.insert(expected.begin() + 1 + per_step, {"push", "profile-steps"});
  const auto events = events_since(before);
  EXPECT_EQ(test_support::ranges_in_domain(events, kNvtxDomainName), expected);
  EXPECT_TRUE(test_support::ranges_balanced(events));
}

TEST(NvtxProbe, ClosesRangesLeftOpenByAStepThatThrew) {
  const std::size_t before = test_support::read_nvtx_log(g_log_path).size();
  const std::string id = "mlp/cuda/fp32/pinned";
  {
    NvtxProbe probe;
    probe.run_begin(id);
    probe.step_begin(0, true);
    probe.phase_begin(Phase::Backward);
    // An OOM here: the Runner catches it and drops the probe without the end calls.
  }
  const Ranges expected = {{"push", id},         {"push", "step"}, {"push", "backward"},
                           {"pop", "backward"}, {"pop", "step"},  {"pop", id}};
  const auto events = events_since(before);
  EXPECT_EQ(test_support::ranges_in_domain(events, kNvtxDomainName), expected);
  EXPECT_TRUE(test_support::ranges_balanced(events));
}

TEST(NvtxProbe, OneDomainForEveryConfigOfTheProcess) {
  {
    NvtxProbe a;
    drive(a, "mlp/cpu/fp32/pageable", 0, 1);
  }
  {
    NvtxProbe b;
    drive(b, "mlp/cpu/fp32/pinned", 0, 1);
  }
  int creates = 0;
  for (const auto& e : test_support::read_nvtx_log(g_log_path)) creates += e.event == "domain_create";
  EXPECT_EQ(creates, 1);
}

TEST(NvtxProbe, WritesItsSection) {
  NvtxProbe probe;
  nlohmann::json result = {{"memory", {{"kept", 1}}}};
  probe.write_result(result);
  EXPECT_EQ(result["nvtx"]["compiled"], true);
  EXPECT_EQ(result["nvtx"]["domain"], "gpubench");
  EXPECT_EQ(result["memory"]["kept"], 1);
}

}  // namespace
}  // namespace gpubench
