#include "harness/parallel/rank_processes.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <thread>

#include "core/device/host_memory_limit.h"
#include "core/io/interrupt.h"

extern char** environ;

namespace gpubench {
namespace {

using Clock = std::chrono::steady_clock;

// The child's environment, built before fork: between fork and exec only
// async-signal-safe calls are allowed (this process may have threads, e.g. a TCPStore).
std::vector<std::string> merged_environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const std::string name = text.substr(0, text.find('='));
    if (extra.count(name) == 0) entries.push_back(text);
  }
  for (const auto& [name, value] : extra) entries.push_back(name + "=" + value);
  return entries;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& text : strings) out.push_back(text.data());
  out.push_back(nullptr);
  return out;
}

struct Running {
  pid_t pid = -1;
  bool done = false;
  bool term_sent = false;
  Clock::time_point term_at{};
  RankExit exit;
};

void finish(Running& rank, int status, const rusage& usage, Clock::time_point start) {
  rank.done = true;
  rank.exit.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  rank.exit.peak_rss_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
  if (WIFEXITED(status)) rank.exit.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) rank.exit.signal = WTERMSIG(status);
}

}  // namespace

std::string RankExit::describe() const {
  if (interrupted) return "interrupted after " + std::to_string(static_cast<int>(wall_s)) + " s";
  if (timed_out) return "timed out after " + std::to_string(static_cast<int>(wall_s)) + " s";
  if (killed_after_rank0)
    return "killed " + std::to_string(static_cast<int>(wall_s)) + " s in, still running after rank 0 had exited";
  if (stopped_after_peer_failure) return "stopped " + std::to_string(static_cast<int>(wall_s)) + " s in, after another rank failed";
  if (out_of_memory) return kKilledOutOfMemory;
  if (signal != 0) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit code " + std::to_string(exit_code);
}

std::vector<RankExit> run_rank_processes(const std::vector<RankProcessSpec>& specs, const RankWaitPolicy& policy) {
  std::vector<std::vector<std::string>> argvs, envs;
  for (const auto& spec : specs) {
    argvs.push_back(spec.argv);
    envs.push_back(merged_environment(spec.env));
  }
  std::vector<Running> ranks(specs.size());
  const auto start = Clock::now();
  const OomKills oom_before = oom_kills();
  // One process group for the config's ranks (the first rank's pid): an interrupt or a
  // second Ctrl-C ends them all, and each dies with this process.
  const pid_t parent = getpid();
  pid_t group = 0;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    std::vector<char*> argv = pointers(argvs[i]);
    std::vector<char*> envp = pointers(envs[i]);
    const pid_t pid = fork();
    if (pid < 0) {
      // Could not start this rank: the others would wait for it until their timeout.
      for (std::size_t j = 0; j < i; ++j) kill(ranks[j].pid, SIGKILL);
      for (std::size_t j = 0; j < i; ++j) waitpid(ranks[j].pid, nullptr, 0);
      throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
      prepare_child_process(parent, group);
      if (specs[i].stdout_to_stderr) ::dup2(STDERR_FILENO, STDOUT_FILENO);
      execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    if (group == 0) group = pid;
    setpgid(pid, group);
    ranks[i].pid = pid;
  }
  set_running_group(group);

  Clock::time_point deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(policy.timeout_s));
  bool peer_failed = false;
  std::optional<Clock::time_point> rank0_exit_deadline;
  // Poll: ranks run for seconds to minutes, 20 ms granularity costs nothing.
  while (std::any_of(ranks.begin(), ranks.end(), [](const Running& r) { return !r.done; })) {
    for (auto& rank : ranks) {
      if (rank.done) continue;
      int status = 0;
      rusage usage{};
      const pid_t reaped = wait4(rank.pid, &status, WNOHANG, &usage);
      if (reaped == rank.pid) {
        finish(rank, status, usage, start);
        // A SIGKILL this process did not send, while the kernel counted an OOM kill.
        rank.exit.out_of_memory =
            killed_by_oom(rank.exit.signal, rank.term_sent || rank.exit.killed_after_rank0, oom_before);
        if (&rank == &ranks.front())
          rank0_exit_deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                   std::chrono::duration<double>(policy.after_rank0_exit_s));
        if (!rank.exit.ok() && !peer_failed) {
          peer_failed = true;
          deadline = std::min(deadline, Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                          std::chrono::duration<double>(policy.after_peer_failure_s)));
        }
      } else if (reaped < 0 && errno != EINTR) {
        rank.done = true;  // not our child any more: nothing to wait for
      }
    }
    const auto now = Clock::now();
    const bool interrupted = interrupt_signal() != 0;
    for (auto& rank : ranks) {
      if (rank.done) continue;
      if (rank0_exit_deadline && now >= *rank0_exit_deadline && !rank.exit.killed_after_rank0) {
        rank.exit.killed_after_rank0 = true;
        kill(rank.pid, SIGKILL);
        continue;
      }
      if (!rank.term_sent && (now >= deadline || interrupted)) {
        (interrupted ? rank.exit.interrupted
                     : peer_failed ? rank.exit.stopped_after_peer_failure : rank.exit.timed_out) = true;
        // An interrupt is passed on as it came (a rank that is itself a gpubench matrix
        // reports "interrupted (SIGINT)"); a deadline sends SIGTERM.
        kill(rank.pid, interrupted ? interrupt_signal() : SIGTERM);
        rank.term_sent = true;
        rank.term_at = now;
      } else if (rank.term_sent && now - rank.term_at >= std::chrono::duration<double>(policy.term_grace_s)) {
        kill(rank.pid, SIGKILL);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  set_running_group(0);
  std::vector<RankExit> exits;
  for (const auto& rank : ranks) exits.push_back(rank.exit);
  return exits;
}

}  // namespace gpubench
