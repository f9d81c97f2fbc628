#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpubench {

// One rank process to start: its argv (argv[0] is the executable path) and the
// environment variables it gets on top of this process's own (a value replaces).
struct RankProcessSpec {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;
  // A config's rank child: its standard output goes to standard error, since this
  // process's standard output carries the report (a model's print must not reach it). Not
  // for --nproc's ranks, whose rank 0 prints the report itself.
  bool stdout_to_stderr = false;
};

struct RankExit {
  int exit_code = -1;  // valid when !signal && !timed_out
  int signal = 0;
  bool timed_out = false;
  bool stopped_after_peer_failure = false;  // killed because another rank had failed and this one did not exit
  bool interrupted = false;                 // stopped because this process got SIGINT/SIGTERM (io/interrupt.h)
  bool killed_after_rank0 = false;          // still running policy.after_rank0_exit_s after rank 0 had exited
  bool out_of_memory = false;               // SIGKILL, not ours, while the kernel counted an OOM kill
  std::uint64_t peak_rss_bytes = 0;
  double wall_s = 0;
  bool ok() const { return !timed_out && !interrupted && signal == 0 && exit_code == 0; }
  std::string describe() const;  // "exit code 3", "killed by signal 9 (Killed)", "timed out after 30 s"
};

struct RankWaitPolicy {
  double timeout_s = 1800;  // the whole group: the config's time limit
  // Once a rank has failed, the others get this long to notice (their collectives fail
  // or time out within --comm-timeout) and exit on their own before being stopped.
  double after_peer_failure_s = 75;
  // Between SIGTERM (or the interrupt passed on) and SIGKILL.
  double term_grace_s = 5;
  // Once rank 0 (the one that writes the report) has exited, the others get this long to
  // exit too, then SIGKILL at once: the report is written, and a stalled rank (SIGSTOP
  // ignores SIGTERM until continued) would otherwise hold the wait forever.
  double after_rank0_exit_s = 1e9;
};

// Starts every rank at once, in one process group that dies with this process, and waits
// for all of them. A rank still running at a deadline, or when this process is
// interrupted (io/interrupt.h), gets SIGTERM (or the interrupting signal), then SIGKILL
// after policy.term_grace_s. Never throws after the first
// process started: a rank that cannot exec exits 127.
std::vector<RankExit> run_rank_processes(const std::vector<RankProcessSpec>& ranks, const RankWaitPolicy& policy);

}  // namespace gpubench
