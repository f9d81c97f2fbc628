// The interference figures from two synthetic samples: the arithmetic, the thresholds and
// their warning, and null for what the kernel did not say. Plus one real sample of this
// machine, which must read (Linux has /proc/stat) without judging what it reads.
#include "core/device/host_interference.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

// A sample `at_s` into a window: the machine's counters in seconds of CPU (converted to
// ticks), the config's own CPU time in seconds.
HostSample sample(double at_s, double busy_s, double idle_s, double steal_s, double own_s) {
  const auto ticks = [](double seconds) {
    return static_cast<std::uint64_t>(seconds / ticks_to_seconds(1) + 0.5);
  };
  HostSample s;
  s.steady_s = at_s;
  s.machine = CpuTicks{ticks(busy_s), ticks(idle_s), ticks(steal_s)};
  s.own_cpu_s = own_s;
  return s;
}

HostState two_cpus() {
  HostState state;
  state.online_cpus = 2;
  state.load_1min = 0.5;
  return state;
}

// 2 CPUs for 2 s: 4 s of capacity.
TEST(Interference, OtherProcessesAreTheBusyTimeLessTheConfigsOwn) {
  const auto begin = sample(100, 1000, 5000, 10, 20);
  const auto end = sample(102, 1000 + 3.0, 5000 + 1.0, 10, 20 + 1.0);
  const auto j = interference_json(begin, end, two_cpus(), OwnCpuScope::Process);
  EXPECT_DOUBLE_EQ(j["window_s"].get<double>(), 2.0);
  EXPECT_NEAR(j["own_cpu_share"].get<double>(), 0.25, 1e-9);
  EXPECT_NEAR(j["other_cpu_share"].get<double>(), 0.50, 1e-9);
  EXPECT_NEAR(j["steal_share"].get<double>(), 0.0, 1e-9);
  EXPECT_EQ(j["own_cpu_counts"], "process");
  EXPECT_EQ(j["machine_cpus"], 2);
  EXPECT_DOUBLE_EQ(j["load_1min_at_start"].get<double>(), 0.5);
  EXPECT_TRUE(j["judged"].get<bool>());
  EXPECT_TRUE(j["disturbed"].get<bool>());
  EXPECT_EQ(j["warning"], "other processes took 50% of the machine's CPU during the measured steps (over 25%): the "
                          "machine was not quiet, its times are not this config's alone");
}

TEST(Interference, AQuietMachineHasFiguresAndNoWarning) {
  const auto j = interference_json(sample(0, 100, 100, 0, 5), sample(2, 100 + 2.2, 100 + 1.8, 0, 5 + 2.0), two_cpus(),
                                   OwnCpuScope::ProcessGroup);
  EXPECT_NEAR(j["other_cpu_share"].get<double>(), 0.05, 1e-9);
  EXPECT_EQ(j["own_cpu_counts"], "process_group");
  EXPECT_FALSE(j["disturbed"].get<bool>());
  EXPECT_TRUE(j["warning"].is_null());
  EXPECT_EQ(j["thresholds"]["other_cpu_share"], kOtherCpuShareLimit);
}

TEST(Interference, StealPastItsThresholdWarnsOnItsOwn) {
  const auto j = interference_json(sample(0, 0, 0, 0, 0), sample(1, 1.0, 0.6, 0.4, 1.0), two_cpus(),
                                   OwnCpuScope::Process);
  EXPECT_NEAR(j["steal_share"].get<double>(), 0.2, 1e-9);
  EXPECT_NEAR(j["other_cpu_share"].get<double>(), 0.0, 1e-9);
  EXPECT_TRUE(j["disturbed"].get<bool>());
  EXPECT_NE(j["warning"].get<std::string>().find("the hypervisor stole 20% of the CPU"), std::string::npos);
}

// getrusage counts to the microsecond, /proc/stat by the tick: own time may pass busy time.
TEST(Interference, SharesStayWithinZeroAndOne) {
  const auto j = interference_json(sample(0, 0, 0, 0, 0), sample(1, 1.0, 1.0, 0, 1.3), two_cpus(), OwnCpuScope::Process);
  EXPECT_DOUBLE_EQ(j["other_cpu_share"].get<double>(), 0.0);
  EXPECT_LE(j["own_cpu_share"].get<double>(), 1.0);
}

TEST(Interference, AWindowTooShortForTheTicksIsNotJudged) {
  const auto j = interference_json(sample(0, 0, 0, 0, 0), sample(0.1, 0.2, 0, 0, 0), two_cpus(), OwnCpuScope::Process);
  EXPECT_DOUBLE_EQ(j["other_cpu_share"].get<double>(), 1.0);
  EXPECT_FALSE(j["judged"].get<bool>());
  EXPECT_FALSE(j["disturbed"].get<bool>());
  EXPECT_TRUE(j["warning"].is_null());
}

TEST(Interference, WhatTheKernelDidNotSayIsNull) {
  HostSample begin, end;
  end.steady_s = 3;
  const auto j = interference_json(begin, end, HostState{}, OwnCpuScope::Process);
  EXPECT_TRUE(j["other_cpu_share"].is_null());
  EXPECT_TRUE(j["steal_share"].is_null());
  EXPECT_TRUE(j["load_1min_at_start"].is_null());
  EXPECT_TRUE(j["cpu_governor"].is_null());
  EXPECT_TRUE(j["cpu0_mhz"].is_null());
  EXPECT_TRUE(j["cpu_pressure"].is_null());
  EXPECT_FALSE(j["judged"].get<bool>());
  EXPECT_FALSE(j["disturbed"].get<bool>());
}

TEST(Interference, PressureIsTheStalledShareOfTheWindow) {
  auto begin = sample(0, 0, 0, 0, 0), end = sample(2, 1, 3, 0, 1);
  begin.cpu_pressure = Pressure{12.5, 1'000'000};
  end.cpu_pressure = Pressure{40.0, 1'500'000};  // 0.5 s stalled of 2 s
  const auto j = interference_json(begin, end, two_cpus(), OwnCpuScope::Process);
  EXPECT_DOUBLE_EQ(j["cpu_pressure"]["some_avg10_percent_at_start"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(j["cpu_pressure"]["some_share"].get<double>(), 0.25);
  EXPECT_TRUE(j["memory_pressure"].is_null());
}

// This machine's own files: Linux always has /proc/stat; the rest may be absent (a VM has
// no cpufreq), and none of it is an error.
TEST(HostSample, ThisMachineReadsItsCounters) {
  const HostSample first = sample_host(OwnCpuScope::Process);
  ASSERT_TRUE(first.machine) << "/proc/stat did not read";
  volatile double sink = 0;
  for (int i = 0; i < 20'000'000; ++i) sink = sink + i;  // some CPU of our own
  const HostSample second = sample_host(OwnCpuScope::Process);
  EXPECT_GT(second.own_cpu_s, first.own_cpu_s);
  EXPECT_GE(second.machine->total(), first.machine->total());
  const HostSample group = sample_host(OwnCpuScope::ProcessGroup);
  EXPECT_GE(group.own_processes, 1) << "this process is in its own process group";
  const HostState state = read_host_state();
  EXPECT_GE(state.online_cpus, 1);
}

}  // namespace
}  // namespace gpubench
