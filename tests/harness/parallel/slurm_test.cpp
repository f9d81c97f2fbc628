// gpubench's DDP ranks under a real Slurm (Debian's slurmctld/slurmd/munge, one node on
// loopback, scripts/slurm-local.sh), as a cluster user launches them: srun from a shell, and
// an sbatch job script with srun inside. Needs root (the daemons run as root; CI is root).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ddp_launch_checks.h"

namespace gpubench {
namespace {

using test_support::expect_same_training_as_own_launcher;
using test_support::ok_ddp_row;
using test_support::run_command;

class Slurm : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (::geteuid() != 0) return;
    dir_ = test_support::make_temp_dir("slurm");
    // munged wants every folder above its socket a+x.
    std::filesystem::permissions(dir_, std::filesystem::perms::owner_all | std::filesystem::perms::group_exec |
                                           std::filesystem::perms::others_exec);
    const auto up = run_command(env() + GPUBENCH_SOURCE_DIR "/scripts/slurm-local.sh up");
    up_ = up.exit_code == 0;
    up_output_ = up.output;
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) run_command(env() + GPUBENCH_SOURCE_DIR "/scripts/slurm-local.sh down");
  }
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "Slurm's daemons run as root here (CI runs as root)";
    ASSERT_TRUE(up_) << "scripts/slurm-local.sh up failed:\n" << up_output_;
  }
  static std::string env() { return "SLURM_LOCAL_DIR=" + dir_ + "/cluster SLURM_CONF=" + dir_ + "/cluster/etc/slurm.conf "; }
  // Slurm sets no MASTER_ADDR/MASTER_PORT: the job exports them (README: More than one machine).
  static std::string master(int port) { return "MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(port); }

  // Submits a 2-task job whose script runs `command` and waits for it; the job's output.
  static std::string run_job(const std::string& name, const std::string& command) {
    const std::string script = dir_ + "/" + name + ".sh";
    std::ofstream(script) << "#!/bin/bash\n#SBATCH -n 2\n#SBATCH -o " << dir_ << "/" << name << ".out\n" << command << "\n";
    const auto run = run_command(env() + "timeout 300 sbatch --wait " + script);
    std::ifstream job_out(dir_ + "/" + name + ".out");
    const std::string log((std::istreambuf_iterator<char>(job_out)), std::istreambuf_iterator<char>());
    EXPECT_EQ(run.exit_code, 0) << run.output << log;
    return log;
  }

  static inline std::string dir_, up_output_;
  static inline bool up_ = false;
};

TEST_F(Slurm, SrunTasksAreTheRanksAndTrainLikeGpubenchsOwnLauncher) {
  const auto run = run_command(env() + "timeout 300 srun -n 2 env " + master(29811) + " " + GPUBENCH_EXE +
                               test_support::kDdpFlags + " --out " + dir_ + "/srun.json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output.find("\"schema_version\""), run.output.rfind("\"schema_version\"")) << "task 1 prints no report";
  const nlohmann::json row = ok_ddp_row(dir_ + "/srun.json");
  EXPECT_EQ(row["ddp"]["launcher"], "slurm");
  expect_same_training_as_own_launcher(dir_ + "/srun.json", dir_);
}

TEST_F(Slurm, AnSbatchJobScriptRunsTheRanksWithSrun) {
  run_job("srun-job",
          "export " + master(29812) + "\nsrun " + GPUBENCH_EXE + test_support::kDdpFlags + " --out " + dir_ + "/sbatch.json");
  const nlohmann::json row = ok_ddp_row(dir_ + "/sbatch.json");
  EXPECT_EQ(row["ddp"]["launcher"], "slurm");
  EXPECT_EQ(row["steps"]["measured"], 6);
}

// The job script itself sees SLURM_PROCID=0 and SLURM_NTASKS=2 but is no srun task: gpubench
// run there directly is one process whose own launcher starts the ranks (it used to take
// itself for rank 0 of 2 and wait for a rank 1 that never came).
TEST_F(Slurm, GpubenchRunDirectlyInAJobScriptLaunchesItsOwnRanks) {
  run_job("direct-job", std::string("timeout 200 ") + GPUBENCH_EXE + test_support::kDdpFlags + " --out " + dir_ + "/direct.json");
  const nlohmann::json row = ok_ddp_row(dir_ + "/direct.json");
  EXPECT_EQ(row["ddp"]["launcher"], "gpubench");
}

}  // namespace
}  // namespace gpubench
