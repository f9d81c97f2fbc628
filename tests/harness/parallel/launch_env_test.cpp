// The launch environment: torchrun, Slurm and gpubench's own variables, and every bad
// combination turned into a UsageError that names the variable and what was expected.
#include "harness/parallel/launch_env.h"

#include <gtest/gtest.h>

#include <map>

#include "core/config/errors.h"
#include "harness/parallel/nproc_launcher.h"
#include "harness/parallel/rank_launcher.h"

namespace gpubench {
namespace {

EnvLookup env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::string usage_error(std::map<std::string, std::string> vars) {
  try {
    read_launch_env(env(std::move(vars)));
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(LaunchEnv, NoVariablesIsOneProcess) {
  const LaunchEnv launch = read_launch_env(env({}));
  EXPECT_FALSE(launch.distributed());
  EXPECT_EQ(launch.world_size, 1);
  EXPECT_EQ(launch.master_addr, "127.0.0.1") << "loopback unless MASTER_ADDR says otherwise";
}

TEST(LaunchEnv, TorchrunWithItsAgentStore) {
  const LaunchEnv launch = read_launch_env(env({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"},
                                                {"MASTER_ADDR", "node0"}, {"MASTER_PORT", "29500"},
                                                {"TORCHELASTIC_RUN_ID", "x"}, {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                                                {"TORCHELASTIC_RESTART_COUNT", "2"}}));
  EXPECT_TRUE(launch.distributed());
  EXPECT_EQ(launch.launcher, "torchrun");
  EXPECT_EQ(launch.rank, 1);
  EXPECT_EQ(launch.world_size, 2);
  EXPECT_EQ(launch.local_rank, 1);
  EXPECT_EQ(launch.master_addr, "node0");
  EXPECT_EQ(launch.master_port, 29500);
  EXPECT_TRUE(launch.launcher_hosts_store);
  EXPECT_EQ(launch.restart_count, 2);
  EXPECT_FALSE(launch.master_is_loopback());
}

TEST(LaunchEnv, ByHandRankZeroHostsTheStore) {
  const LaunchEnv launch = read_launch_env(env({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "29501"}}));
  EXPECT_EQ(launch.launcher, "env");
  EXPECT_FALSE(launch.launcher_hosts_store);
  EXPECT_EQ(launch.local_rank, 0) << "LOCAL_RANK defaults to RANK";
  EXPECT_TRUE(launch.master_is_loopback());
}

TEST(LaunchEnv, SlurmTasks) {
  const LaunchEnv launch = read_launch_env(env({{"SLURM_PROCID", "3"}, {"SLURM_NTASKS", "4"}, {"SLURM_LOCALID", "1"},
                                                {"SLURM_STEP_ID", "0"}, {"MASTER_ADDR", "n1"}, {"MASTER_PORT", "29500"}}));
  EXPECT_EQ(launch.launcher, "slurm");
  EXPECT_EQ(launch.rank, 3);
  EXPECT_EQ(launch.world_size, 4);
  EXPECT_EQ(launch.local_rank, 1);
  // A one-task step (e.g. an interactive srun) is not a distributed launch.
  EXPECT_FALSE(read_launch_env(env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}, {"SLURM_STEP_ID", "0"}})).distributed());
  // A job script (sbatch -n 2) has SLURM_PROCID=0 and SLURM_NTASKS=2 but no step: it is one
  // process (gpubench's own launcher starts a ddp-N's ranks), not rank 0 of 2 waiting forever.
  EXPECT_FALSE(read_launch_env(env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}})).distributed());
  // RANK/WORLD_SIZE (torchrun inside a Slurm job) win.
  EXPECT_EQ(read_launch_env(env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "8"}, {"RANK", "1"}, {"WORLD_SIZE", "2"},
                                 {"MASTER_PORT", "1234"}}))
                .world_size,
            2);
}

TEST(LaunchEnv, BadEnvironmentsAreUsageErrorsThatSayWhatIsWrong) {
  EXPECT_NE(usage_error({{"WORLD_SIZE", "2"}}).find("WORLD_SIZE=2 is set but RANK is not"), std::string::npos);
  EXPECT_NE(usage_error({{"RANK", "0"}}).find("RANK=0 is set but WORLD_SIZE is not"), std::string::npos);
  EXPECT_NE(usage_error({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "1"}}).find("RANK=2 is not below WORLD_SIZE=2"),
            std::string::npos);
  EXPECT_NE(usage_error({{"RANK", "one"}, {"WORLD_SIZE", "2"}}).find("RANK='one' is invalid"), std::string::npos);
  EXPECT_NE(usage_error({{"RANK", "0"}, {"WORLD_SIZE", "2x"}}).find("WORLD_SIZE='2x' is invalid"), std::string::npos);
  EXPECT_NE(usage_error({{"RANK", "0"}, {"WORLD_SIZE", "0"}}).find("WORLD_SIZE='0' is invalid"), std::string::npos);
  EXPECT_NE(usage_error({{"RANK", "0"}, {"WORLD_SIZE", "2"}}).find("MASTER_PORT is not set"), std::string::npos);
  EXPECT_NE(usage_error({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "70000"}}).find("MASTER_PORT='70000' is invalid"),
            std::string::npos);
  const std::string slurm = usage_error({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_STEPID", "1"}});
  EXPECT_NE(slurm.find("Slurm does not set it"), std::string::npos) << slurm;
}

TEST(RankLauncher, VisibleDeviceOfALocalRank) {
  EXPECT_EQ(visible_device_for(1, env({})), "1");
  EXPECT_EQ(visible_device_for(1, env({{"CUDA_VISIBLE_DEVICES", "4,6"}})), "6");
  EXPECT_EQ(visible_device_for(0, env({{"CUDA_VISIBLE_DEVICES", "GPU-abc,GPU-def"}})), "GPU-abc");
}

TEST(RankLauncher, UnderALauncherOnlyMatchingDdpConfigsRun) {
  const auto launcher = RankLauncher::from_environment(5, env({{"RANK", "0"}, {"WORLD_SIZE", "1"}}));
  ASSERT_TRUE(launcher->external());
  EXPECT_FALSE(launcher->skip_reason(Config::parse("mlp/cpu/fp32/ddp-1")).has_value());
  const auto single = launcher->skip_reason(Config::parse("mlp/cpu/fp32"));
  ASSERT_TRUE(single.has_value());
  EXPECT_NE(single->find("only ddp-N, zero1-N, zero2-N or fsdp-N configs with N = 1 run under a distributed launcher"), std::string::npos) << *single;
  const auto other = launcher->skip_reason(Config::parse("mlp/cpu/fp32/ddp-2"));
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->rfind("ddp-2 needs 2 ranks; launched as rank 0 of 1", 0), 0u) << *other;
  EXPECT_FALSE(RankLauncher::from_environment(5, env({}))->skip_reason(Config::parse("mlp/cpu/fp32")).has_value());
}

TEST(NprocLauncher, DropsItsOwnFlag) {
  EXPECT_EQ(without_nproc_flag({"gpubench", "--nproc", "2", "--matrix", "x", "--nproc=3", "--steps", "1"}),
            (std::vector<std::string>{"gpubench", "--matrix", "x", "--steps", "1"}));
}

}  // namespace
}  // namespace gpubench
