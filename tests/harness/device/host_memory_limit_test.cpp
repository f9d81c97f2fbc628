#include "device/host_memory_limit.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

const char* const kMeminfo = "MemTotal:       24000000 kB\nMemFree:         1000000 kB\nMemAvailable:   20000000 kB\n";

TEST(HostMemoryLimit, TheSmallerOfMemAvailableAndWhatTheCgroupLeaves) {
  const auto free_machine = host_memory_limit_from(kMeminfo, "max\n", "1000\n");
  ASSERT_TRUE(free_machine);
  EXPECT_EQ(free_machine->available_bytes, 20000000ULL * 1024);
  EXPECT_EQ(free_machine->source, "MemAvailable in /proc/meminfo");
  const auto limited = host_memory_limit_from(kMeminfo, "3221225472\n", "1073741824\n");
  ASSERT_TRUE(limited);
  EXPECT_EQ(limited->available_bytes, 2147483648ULL);
  EXPECT_EQ(limited->source, "the cgroup's memory.max less memory.current");
  EXPECT_EQ(host_memory_limit_from(kMeminfo, "100\n", "200\n")->available_bytes, 0u) << "over its limit already";
  EXPECT_FALSE(host_memory_limit_from("", "", ""));
}

TEST(HostMemoryLimit, ThisMachineHasSome) {
  const auto here = host_memory_limit();
  ASSERT_TRUE(here);
  EXPECT_GT(here->available_bytes, 0u);
}

}  // namespace
}  // namespace gpubench
