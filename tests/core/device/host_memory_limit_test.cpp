#include "core/device/host_memory_limit.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/run_command.h"

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
  EXPECT_EQ(limited->source, "the cgroup's memory limit less its usage");
  EXPECT_EQ(host_memory_limit_from(kMeminfo, "100\n", "200\n")->available_bytes, 0u) << "over its limit already";
  EXPECT_FALSE(host_memory_limit_from("", "", ""));
}

void touch(const std::string& path) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << "0\n";
}

// /proc/self/cgroup on a hybrid host (this project's Debian 12 VMs: the v2 line has no
// memory controller, v1's memory hierarchy holds the limit) and on a pure v2 one.
TEST(MemoryCgroupFiles, V1MemoryHierarchyOnAHybridHostAndV2WhereItHasTheController) {
  const std::string root = test_support::make_temp_dir("cgroup");
  touch(root + "/memory/process_api/job/memory.limit_in_bytes");
  const std::string hybrid = "9:name=systemd:/\n4:memory:/process_api/job\n1:cpu:/\n0::/\n";
  const auto v1 = memory_cgroup_files(hybrid, root);
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->version, 1);
  EXPECT_EQ(v1->limit, root + "/memory/process_api/job/memory.limit_in_bytes");
  EXPECT_EQ(v1->usage, root + "/memory/process_api/job/memory.usage_in_bytes");
  EXPECT_EQ(v1->oom_events, root + "/memory/process_api/job/memory.oom_control");
  EXPECT_TRUE(memory_cgroup_files("3:cpuacct,memory:/process_api/job\n", root)) << "a comma list of controllers";
  EXPECT_FALSE(memory_cgroup_files("4:memorysomething:/process_api/job\n", root));

  touch(root + "/user.slice/job/memory.max");
  const auto v2 = memory_cgroup_files("0::/user.slice/job\n", root);
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->version, 2);
  EXPECT_EQ(v2->oom_events, root + "/user.slice/job/memory.events");
  EXPECT_FALSE(memory_cgroup_files("0::/elsewhere\n", root)) << "a v2 folder without the memory controller";
  EXPECT_FALSE(memory_cgroup_files("garbage\n\n", root));
  std::filesystem::remove_all(root);
}

TEST(HostMemoryLimit, AV1LimitLeavesWhatItLeaves) {
  // v1 says "no limit" with a page-rounded LONG_MAX: MemAvailable decides then.
  EXPECT_EQ(host_memory_limit_from(kMeminfo, "9223372036854771712\n", "1073741824\n")->source,
            "MemAvailable in /proc/meminfo");
  EXPECT_EQ(host_memory_limit_from(kMeminfo, "2147483648\n", "1073741824\n")->available_bytes, 1073741824u);
}

void write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

// A limit on a parent slice binds the job's cgroup under it, whose own limit says "max"
// (v2) or a page-rounded LONG_MAX (v1): the tightest of the chain decides, and says where.
TEST(HostMemoryLimit, ALimitOnACgroupAboveBindsTheOneBelow) {
  const std::string root = test_support::make_temp_dir("cgroup-chain");
  write(root + "/ci.slice/memory.max", "3221225472\n");
  write(root + "/ci.slice/memory.current", "1073741824\n");
  write(root + "/ci.slice/job/memory.max", "max\n");
  write(root + "/ci.slice/job/memory.current", "536870912\n");
  const auto v2 = host_memory_limit_in(memory_cgroup_files("0::/ci.slice/job\n", root), kMeminfo);
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->available_bytes, 2147483648ULL);
  EXPECT_EQ(v2->source, "the memory limit of the cgroup above it, '" + root + "/ci.slice', less its usage");

  write(root + "/memory/runner/memory.limit_in_bytes", "1610612736\n");
  write(root + "/memory/runner/memory.usage_in_bytes", "536870912\n");
  write(root + "/memory/runner/job/memory.limit_in_bytes", "9223372036854771712\n");
  write(root + "/memory/runner/job/memory.usage_in_bytes", "0\n");
  const auto v1 = host_memory_limit_in(memory_cgroup_files("4:memory:/runner/job\n", root), kMeminfo);
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->available_bytes, 1073741824ULL);

  // The job's own limit, tighter than its parent's, is the job's.
  write(root + "/ci.slice/job/memory.max", "1073741824\n");
  const auto own = host_memory_limit_in(memory_cgroup_files("0::/ci.slice/job\n", root), kMeminfo);
  EXPECT_EQ(own->available_bytes, 536870912ULL);
  EXPECT_EQ(own->source, "the cgroup's memory limit less its usage");
  // No limit anywhere: MemAvailable.
  EXPECT_EQ(host_memory_limit_in(std::nullopt, kMeminfo)->source, "MemAvailable in /proc/meminfo");
  std::filesystem::remove_all(root);
}

TEST(HostMemoryLimit, ThisMachineHasSome) {
  const auto here = host_memory_limit();
  ASSERT_TRUE(here);
  EXPECT_GT(here->available_bytes, 0u);
}

}  // namespace
}  // namespace gpubench
