#pragma once
#include <functional>
#include <optional>
#include <string>

namespace gpubench {

// Who started this process as one rank of a distributed run, read from the environment
// alone, as torch.distributed's env:// rendezvous does:
//   torchrun    RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT (+ TORCHELASTIC_*)
//   Slurm       SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID (+ MASTER_ADDR, MASTER_PORT,
//               which Slurm does not set: the job script exports them)
//   gpubench    what `gpubench --nproc N` and the matrix runner give each rank they spawn
// RANK/WORLD_SIZE win over SLURM_*. A Slurm step with one task is not distributed, nor is a
// job script or salloc shell (SLURM_PROCID without SLURM_STEP_ID: not started by srun).
struct LaunchEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string master_addr = "127.0.0.1";  // loopback unless MASTER_ADDR says otherwise
  int master_port = 0;
  // The launcher already serves the rendezvous TCPStore at MASTER_ADDR:MASTER_PORT
  // (torchrun's agent store, TORCHELASTIC_USE_AGENT_STORE=True, or gpubench's own), so
  // every rank connects as a client; otherwise rank 0 hosts it, as env:// does.
  bool launcher_hosts_store = false;
  std::string launcher = "none";  // none | torchrun | slurm | env | gpubench
  int restart_count = 0;          // torchrun's TORCHELASTIC_RESTART_COUNT: keys stay per attempt

  bool distributed() const { return launcher != "none"; }
  bool master_is_loopback() const;
  std::string describe() const;  // "rank 1 of 2 (torchrun, store 127.0.0.1:29500)"
};

// Looks up one environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup process_environment();

// Throws UsageError naming the variable, its value and what was expected: WORLD_SIZE
// without RANK (or the reverse), non-numeric values, RANK >= WORLD_SIZE, a distributed
// launch without MASTER_PORT, a port outside 1..65535.
LaunchEnv read_launch_env(const EnvLookup& lookup = process_environment());

// The environment names gpubench's own launchers set for a rank they spawn.
namespace launch_vars {
inline constexpr const char* kAgentStore = "GPUBENCH_AGENT_STORE";    // "1": launcher hosts the store
inline constexpr const char* kStorePrefix = "GPUBENCH_STORE_PREFIX";  // key namespace of one config
inline constexpr const char* kLauncher = "GPUBENCH_LAUNCHER";         // "gpubench"
// The run's secret that authenticates what ranks hand each other through the store
// (run_secret.h); under torchrun or Slurm the user exports it to every rank.
inline constexpr const char* kRunSecret = "GPUBENCH_RUN_SECRET";
}  // namespace launch_vars

}  // namespace gpubench
