#include "harness/parallel/nproc_launcher.h"

#include <chrono>
#include <iostream>

#include "core/config/errors.h"
#include "core/io/interrupt.h"
#include "harness/parallel/launch_env.h"
#include "harness/parallel/launch_store.h"
#include "harness/parallel/rank_launcher.h"
#include "harness/parallel/rank_processes.h"
#include "harness/parallel/run_secret.h"

namespace gpubench {

std::vector<std::string> without_nproc_flag(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--nproc") {
      ++i;  // and its value
      continue;
    }
    if (argv[i].rfind("--nproc=", 0) == 0) continue;
    out.push_back(argv[i]);
  }
  return out;
}

int run_nproc_launcher(int nproc, const std::vector<std::string>& argv) {
  const LaunchEnv env = read_launch_env();
  if (env.distributed())
    throw UsageError("--nproc " + std::to_string(nproc) + " starts its own ranks, but this process already is " +
                     env.describe() + ": drop --nproc under torchrun or srun");
  // The store lives as long as the ranks: their matrix processes and every config's
  // children meet in it. Its own waits never matter here (it only serves).
  // Ctrl-C reaches this process only (the ranks have their own process group): it is
  // passed on to the ranks, which stop their running config and write their report.
  install_interrupt_handlers();
  const auto store = host_store("127.0.0.1", 0, std::chrono::minutes(1));
  const int port = hosted_store_port(store);
  std::vector<RankProcessSpec> specs;
  // One secret for the run, in the ranks' environment only (run_secret.h): what they hand
  // each other through the store is sealed with it.
  const std::string secret = new_run_secret();
  for (int rank = 0; rank < nproc; ++rank) specs.push_back({argv, local_rank_environment(rank, nproc, port, secret)});
  RankWaitPolicy policy;
  // Each rank bounds its own waits (--config-timeout, --comm-timeout) and finishes its
  // matrix even when a peer died, so the launcher just waits.
  policy.timeout_s = 1e9;
  policy.after_peer_failure_s = 1e9;
  policy.term_grace_s = 30;  // an interrupted rank stops its config (5 s at most) and writes its report
  // Under a launcher only ddp-N configs run, in step on every rank, and a rank's last act
  // is to hand rank 0 its outcome: once rank 0 has written the report and exited, a healthy
  // peer exits within seconds. One still running after the peer grace is stalled
  // (SIGSTOP, a hung driver): it is killed.
  policy.after_rank0_exit_s = kPeerGrace_s + kTermGrace_s;
  const std::vector<RankExit> exits = run_rank_processes(specs, policy);
  if (const int signal = interrupt_signal(); signal != 0) return 128 + signal;
  for (std::size_t rank = 1; rank < exits.size(); ++rank)
    if (exits[rank].killed_after_rank0)
      std::cerr << "gpubench: warning: rank " << rank << " of " << nproc << " was still running "
                << kPeerGrace_s + kTermGrace_s << " s after rank 0 had written the report and exited: killed; rank 0's "
                << "report stands\n";
  auto code = [](const RankExit& exit) { return exit.signal != 0 ? 128 + exit.signal : exit.exit_code; };
  if (code(exits[0]) != 0) return code(exits[0]);
  for (const auto& exit : exits)
    if (!exit.killed_after_rank0 && code(exit) != 0) return code(exit);
  return 0;
}

}  // namespace gpubench
