// The kernel's CPU files read from fixture text: real lines copied from Linux 6.x, the odd
// ones (an old kernel without steal, a command name with spaces and parentheses) and text
// that must read as nothing rather than as a wrong number.
#include "core/device/host_counters.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

TEST(ProcStat, SumsBusyIdleAndStealFromTheAggregateLine) {
  const std::string text =
      "cpu  3378189 4894 627724 588502 13568 0 3842 8571 0 0\n"
      "cpu0 1689094 2447 313862 294251 6784 0 1921 4285 0 0\n"
      "intr 123 0 0\n";
  const auto ticks = parse_proc_stat(text);
  ASSERT_TRUE(ticks);
  EXPECT_EQ(ticks->busy, 3378189u + 4894 + 627724 + 0 + 3842);  // user nice system irq softirq
  EXPECT_EQ(ticks->idle, 588502u + 13568);                        // idle iowait
  EXPECT_EQ(ticks->steal, 8571u);
  EXPECT_EQ(ticks->total(), ticks->busy + ticks->idle + ticks->steal);
}

TEST(ProcStat, AnOldKernelWithoutStealReadsAsNoSteal) {
  const auto ticks = parse_proc_stat("cpu  10 0 5 100 1 0 2\n");
  ASSERT_TRUE(ticks);
  EXPECT_EQ(ticks->busy, 17u);
  EXPECT_EQ(ticks->steal, 0u);
}

TEST(ProcStat, TextWithoutTheAggregateLineOrNumbersIsNothing) {
  EXPECT_FALSE(parse_proc_stat(""));
  EXPECT_FALSE(parse_proc_stat("cpu0 1 2 3 4 5 6 7 8\n"));  // per-CPU lines only
  EXPECT_FALSE(parse_proc_stat("cpu  1 2 3\n"));            // too few fields
  EXPECT_FALSE(parse_proc_stat("cpu  1 2 x 4 5 6 7 8\n"));
}

TEST(LoadAverage, ReadsTheOneMinuteFigure) {
  EXPECT_DOUBLE_EQ(*parse_loadavg_1min("2.64 1.29 1.75 5/136 7356\n"), 2.64);
  EXPECT_FALSE(parse_loadavg_1min(""));
  EXPECT_FALSE(parse_loadavg_1min("busy 1 2"));
}

TEST(Pressure, ReadsTheSomeLinesAvg10AndTotal) {
  const std::string text =
      "some avg10=93.60 avg60=46.24 avg300=14.38 total=10236277481\n"
      "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
  const auto pressure = parse_pressure(text);
  ASSERT_TRUE(pressure);
  EXPECT_DOUBLE_EQ(pressure->some_avg10_percent, 93.60);
  EXPECT_EQ(pressure->some_total_us, 10236277481u);
}

TEST(Pressure, AMissingFileOrAMangledLineIsNothing) {
  EXPECT_FALSE(parse_pressure(""));  // a kernel without PSI: the file does not open
  EXPECT_FALSE(parse_pressure("full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"));
  EXPECT_FALSE(parse_pressure("some avg10=x avg60=0.00 avg300=0.00 total=5\n"));
  EXPECT_FALSE(parse_pressure("some avg60=0.00 avg300=0.00\n"));
}

TEST(PidStat, ReadsGroupAndCpuPastANameWithSpacesAndParentheses) {
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
  const std::string text = "4242 (gpu bench) (x)) R 1 4240 4240 0 -1 4194304 900 0 3 0 1234 56 0 0 20 0 9 0\n";
  const auto cpu = parse_pid_stat(text);
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->process_group, 4240);
  EXPECT_EQ(cpu->cpu_ticks, 1234u + 56);
}

TEST(PidStat, ATruncatedOrGarbledLineIsNothing) {
  EXPECT_FALSE(parse_pid_stat(""));
  EXPECT_FALSE(parse_pid_stat("4242 (x) R 1 4240"));
  EXPECT_FALSE(parse_pid_stat("4242 (x) R 1 grp 4240 0 -1 4194304 900 0 3 0 1234 56\n"));
}

}  // namespace
}  // namespace gpubench
