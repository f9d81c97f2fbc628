#include "harness/parallel/launch_env.h"

#include <cstdlib>

#include "core/config/errors.h"

namespace gpubench {
namespace {

int parse_whole(const std::string& name, const std::string& text, long min, long max, const std::string& expected) {
  std::size_t used = 0;
  long value = 0;
  bool ok = !text.empty();
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    ok = false;
  }
  if (!ok || used != text.size() || value < min || value > max)
    throw UsageError(name + "='" + text + "' is invalid: expected " + expected);
  return static_cast<int>(value);
}

struct RankSource {
  const char* rank;
  const char* world;
  const char* local_rank;
  const char* launcher;
};

void read_master(const EnvLookup& lookup, const RankSource& source, LaunchEnv& env) {
  if (auto addr = lookup("MASTER_ADDR"); addr && !addr->empty()) env.master_addr = *addr;
  const auto port = lookup("MASTER_PORT");
  if (!port || port->empty()) {
    if (env.world_size == 1) return;  // one rank needs no rendezvous
    std::string hint = std::string(source.launcher) == std::string("slurm")
                           ? " (Slurm does not set it: export MASTER_ADDR=<first node> MASTER_PORT=<free port> in the job script)"
                           : " (e.g. MASTER_PORT=29500; torchrun sets it)";
    throw UsageError(std::string(source.world) + "=" + std::to_string(env.world_size) +
                     " asks for a distributed run but MASTER_PORT is not set: every rank needs the rendezvous "
                     "store's address" + hint);
  }
  env.master_port = parse_whole("MASTER_PORT", *port, 1, 65535, "a TCP port from 1 to 65535");
}

}  // namespace

bool LaunchEnv::master_is_loopback() const {
  return master_addr == "localhost" || master_addr == "::1" || master_addr.rfind("127.", 0) == 0;
}

std::string LaunchEnv::describe() const {
  return "rank " + std::to_string(rank) + " of " + std::to_string(world_size) + " (" + launcher + ", store " +
         master_addr + ":" + std::to_string(master_port) + (launcher_hosts_store ? " served by the launcher" : "") +
         ")";
}

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

LaunchEnv read_launch_env(const EnvLookup& lookup) {
  LaunchEnv env;
  const auto rank = lookup("RANK");
  const auto world = lookup("WORLD_SIZE");
  RankSource source{"RANK", "WORLD_SIZE", "LOCAL_RANK", "env"};
  std::optional<std::string> rank_text, world_text;
  if (rank || world) {
    if (!rank)
      throw UsageError("WORLD_SIZE=" + *world +
                       " is set but RANK is not: a distributed launch (torchrun, or by hand) sets both, "
                       "RANK from 0 to WORLD_SIZE-1");
    if (!world)
      throw UsageError("RANK=" + *rank + " is set but WORLD_SIZE is not: a distributed launch sets both");
    rank_text = rank;
    world_text = world;
    if (lookup("TORCHELASTIC_RUN_ID")) source.launcher = "torchrun";
    if (lookup(launch_vars::kLauncher).value_or("") == "gpubench") source.launcher = "gpubench";
  } else if (const auto procid = lookup("SLURM_PROCID"); procid && (lookup("SLURM_STEP_ID") || lookup("SLURM_STEPID"))) {
    // Only a task srun started has a step id: a job script or an salloc shell also sees
    // SLURM_PROCID=0 and the job's SLURM_NTASKS, but it is one process, not rank 0 of them.
    const auto ntasks = lookup("SLURM_NTASKS");
    if (!ntasks) throw UsageError("SLURM_PROCID=" + *procid + " is set but SLURM_NTASKS is not: run the tasks with srun");
    source = {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "slurm"};
    rank_text = procid;
    world_text = ntasks;
  } else {
    return env;  // not launched as a rank
  }
  env.world_size = parse_whole(source.world, *world_text, 1, 1 << 20, "a whole number of ranks, 1 or more");
  env.rank = parse_whole(source.rank, *rank_text, 0, 1 << 20, "a whole number from 0 to " + std::string(source.world) + "-1");
  if (env.rank >= env.world_size)
    throw UsageError(std::string(source.rank) + "=" + std::to_string(env.rank) + " is not below " + source.world + "=" +
                     std::to_string(env.world_size) + ": ranks run from 0 to " + std::to_string(env.world_size - 1));
  if (env.world_size == 1 && std::string(source.launcher) == "slurm") return LaunchEnv{};  // a one-task step
  env.launcher = source.launcher;
  env.local_rank = env.rank;
  if (const auto local = lookup(source.local_rank); local && !local->empty())
    env.local_rank = parse_whole(source.local_rank, *local, 0, 1 << 20, "a whole number, 0 or more");
  read_master(lookup, source, env);
  const std::string agent = lookup("TORCHELASTIC_USE_AGENT_STORE").value_or("");
  env.launcher_hosts_store = agent == "True" || agent == "true" || agent == "1" ||
                             lookup(launch_vars::kAgentStore).value_or("") == "1";
  if (const auto restarts = lookup("TORCHELASTIC_RESTART_COUNT"); restarts && !restarts->empty())
    env.restart_count = parse_whole("TORCHELASTIC_RESTART_COUNT", *restarts, 0, 1 << 20, "a whole number");
  return env;
}

}  // namespace gpubench
