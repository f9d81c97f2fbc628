// The probe's window: from the first measured step's start to the run's end, warm-up left
// out; no measured step, no interference object.
#include "harness/profile/host_interference_probe.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

void burn_cpu() {
  volatile double sink = 0;
  for (int i = 0; i < 5'000'000; ++i) sink = sink + i;
}

TEST(HostInterferenceProbe, WritesTheMeasuredStepsWindow) {
  HostInterferenceProbe probe(OwnCpuScope::Process);
  probe.run_begin("mlp/cpu/fp32");
  probe.step_begin(0, false);
  burn_cpu();
  probe.step_end(0, false);
  for (int step = 1; step < 3; ++step) {
    probe.step_begin(step, true);
    burn_cpu();
    probe.step_end(step, true);
  }
  probe.run_end();
  nlohmann::json row;
  probe.write_result(row);
  ASSERT_TRUE(row.contains("interference")) << row.dump();
  const auto& j = row["interference"];
  EXPECT_GT(j["window_s"].get<double>(), 0);
  EXPECT_EQ(j["own_cpu_counts"], "process");
  ASSERT_TRUE(j["other_cpu_share"].is_number()) << "Linux has /proc/stat: " << j.dump();
  EXPECT_GE(j["other_cpu_share"].get<double>(), 0);
  EXPECT_LE(j["other_cpu_share"].get<double>(), 1);
}

TEST(HostInterferenceProbe, WarmUpAloneLeavesNoObject) {
  HostInterferenceProbe probe(OwnCpuScope::Process);
  probe.run_begin("mlp/cpu/fp32");
  probe.step_begin(0, false);
  probe.step_end(0, false);
  probe.run_end();
  nlohmann::json row = nlohmann::json::object();
  probe.write_result(row);
  EXPECT_FALSE(row.contains("interference"));
}

}  // namespace
}  // namespace gpubench
