#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <torch/csrc/distributed/c10d/Store.hpp>

#include "core/config/config.h"
#include "harness/parallel/launch_env.h"
#include "harness/parallel/rank_processes.h"
#include "harness/parallel/store_seal.h"

namespace gpubench {

// After the first rank of a config fails, how long the others get to exit on their own,
// then between their SIGTERM and SIGKILL (RankLauncher::launch): a stall ends a config
// within --comm-timeout + 8 s, plus the processes' exits.
constexpr double kPeerGrace_s = 5;
constexpr double kTermGrace_s = 3;

// How one rank of a DDP config ended, as the matrix report needs it.
struct RankReport {
  bool ok = false;
  std::string reason;  // empty when ok
  std::uint64_t peak_rss_bytes = 0;
  double wall_s = 0;
};

// A peer's outcome as read from the rendezvous store: a value that is not the object ranks
// write is that rank's failure with a reason (never thrown: the report must survive it).
RankReport parsed_rank_report(const std::string& value);

// A peer's sealed outcome (store_seal.h) read back from the store under `key`: one that
// fails authentication is rank `rank`'s failure saying so ("rank 1's report failed
// authentication: ..."), whatever it claims; one that opens, parsed_rank_report's.
RankReport opened_rank_report(const StoreSeal& seal, const std::string& key, int rank, const std::string& sealed);

// The matrix runner's side of DDP configs. Every config still runs in child processes
// (isolation, a clean peak RSS per process); for a ddp-N config they are its ranks:
//  - launched alone (no RANK/WORLD_SIZE, no multi-task Slurm step): this process hosts a
//    TCPStore on 127.0.0.1 (a free port the kernel picks) and starts all N ranks here;
//  - launched as one rank (torchrun, Slurm, or by hand): only ddp-WORLD_SIZE configs run,
//    this process starts its own rank's child, and the ranks' outcomes meet in the
//    launcher's store (torchrun's agent store; else rank 0's gpubench process hosts it on
//    MASTER_PORT). Only rank 0 reports.
// The children always connect to the store as clients, each config under its own key prefix.
class RankLauncher {
 public:
  // Reads the launch environment (UsageError on a bad one) and, when launched as a rank,
  // reaches the store now: a wrong address or a busy port fails before any config runs.
  static std::unique_ptr<RankLauncher> from_environment(double comm_timeout_s,
                                                       const EnvLookup& lookup = process_environment());

  const LaunchEnv& env() const { return env_; }
  bool external() const { return env_.distributed(); }
  bool writes_report() const { return env_.rank == 0; }
  // Whether what the ranks hand each other through the store is sealed (store_seal.h):
  // always when this process starts them, under a launcher when it gave GPUBENCH_RUN_SECRET.
  bool results_authenticated() const { return seal_.authenticates(); }

  // Under a distributed launcher: every rank must expand the same matrix (same flags);
  // throws UsageError naming the difference otherwise. No-op when launched alone.
  void agree_on_configs(const std::vector<std::string>& config_ids);

  // Why a config cannot run in this launch (external launches run only ddp-WORLD_SIZE).
  std::optional<std::string> skip_reason(const Config& config) const;

  struct ConfigLaunch {
    std::string scope;  // unique per config within this matrix, e.g. "config3"
    int world_size = 1;
    bool cuda = false;  // narrow CUDA_VISIBLE_DEVICES to the rank's LOCAL_RANK device
    double timeout_s = 1800;
    std::function<std::vector<std::string>(int rank)> argv_for_rank;
  };
  // Starts the config's ranks that live here (all, or this rank's) and waits for them.
  std::vector<std::pair<int, RankExit>> launch(const ConfigLaunch& request);

  // Shares the local ranks' reports; rank 0 returns every rank's (a rank that reports
  // nothing in time is a failure that says so), other ranks their own.
  std::vector<std::pair<int, RankReport>> exchange(const std::string& scope, int world_size,
                                                   const std::vector<std::pair<int, RankReport>>& local);

 private:
  RankLauncher(LaunchEnv env, double comm_timeout_s) : env_(std::move(env)), comm_timeout_s_(comm_timeout_s) {}
  std::chrono::milliseconds comm_timeout() const;
  std::string key_prefix() const;

  LaunchEnv env_;
  double comm_timeout_s_;
  c10::intrusive_ptr<c10d::Store> store_;  // null until needed when launched alone
  int store_port_ = 0;
  std::optional<std::string> secret_;  // the run's (run_secret.h); none under a launcher that gave none
  StoreSeal seal_{std::nullopt};       // what crosses store_ (store_seal.h)
};

// The device a rank with `local_rank` gets: the local_rank-th entry of the current
// CUDA_VISIBLE_DEVICES, or local_rank itself when that is unset.
std::string visible_device_for(int local_rank, const EnvLookup& lookup = process_environment());

// The environment a launcher gives rank `rank` of `world_size` on this host, with the
// store at 127.0.0.1:`port` served by the launcher and the run's `secret` (run_secret.h).
std::map<std::string, std::string> local_rank_environment(int rank, int world_size, int port, const std::string& secret);

}  // namespace gpubench
