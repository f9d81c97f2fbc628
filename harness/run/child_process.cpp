#include "harness/run/child_process.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <optional>
#include <thread>

#include "core/device/host_memory_limit.h"
#include "core/io/interrupt.h"

namespace gpubench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::seconds kGrace{5};  // between SIGTERM and SIGKILL

bool try_reap(pid_t pid, int& status, rusage& usage) {
  const pid_t done = wait4(pid, &status, WNOHANG, &usage);
  if (done == pid) return true;
  if (done < 0 && errno != EINTR) throw std::runtime_error(std::string("wait4: ") + std::strerror(errno));
  return false;
}

}  // namespace

std::string ChildOutcome::describe() const {
  if (interrupted) return "interrupted after " + std::to_string(static_cast<int>(wall_s)) + " s";
  if (timed_out) return "timed out after " + std::to_string(static_cast<int>(wall_s)) + " s";
  if (out_of_memory) return kKilledOutOfMemory;
  if (signal != 0) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit code " + std::to_string(exit_code);
}

std::string self_executable() {
  char path[PATH_MAX];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (length <= 0) throw std::runtime_error("cannot read /proc/self/exe");
  path[length] = '\0';
  return path;
}

ChildOutcome run_child_process(const std::vector<std::string>& argv, double timeout_s) {
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  const auto start = Clock::now();
  const OomKills oom_before = oom_kills();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    prepare_child_process(parent, 0);  // a process group of its own, dies with us
    // gpubench's standard output is its report (--format json): whatever a child writes
    // there (a TorchScript model's print, a library's chatter) goes to standard error.
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    execv(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also here: no window where a signal to the group misses it
  set_running_group(pid);

  ChildOutcome outcome;
  int status = 0;
  rusage usage{};
  const auto deadline = start + std::chrono::duration<double>(timeout_s);
  // Poll: a child normally runs for seconds to minutes, so 20 ms granularity costs nothing.
  // The timeout and an interrupt end the child's whole process group: SIGTERM, then
  // SIGKILL after a grace.
  std::optional<Clock::time_point> term_at;
  while (!try_reap(pid, status, usage)) {
    const auto now = Clock::now();
    if (!term_at && (now >= deadline || interrupt_signal() != 0)) {
      (interrupt_signal() != 0 ? outcome.interrupted : outcome.timed_out) = true;
      kill(-pid, interrupt_signal() != 0 ? interrupt_signal() : SIGTERM);
      term_at = now;
    } else if (term_at && now - *term_at >= kGrace) {
      kill(-pid, SIGKILL);
      while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  set_running_group(0);
  outcome.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  outcome.peak_rss_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  // SIGKILL that gpubench did not send, while the kernel killed for memory: say so.
  outcome.out_of_memory = killed_by_oom(outcome.signal, term_at.has_value(), oom_before);
  return outcome;
}

}  // namespace gpubench
