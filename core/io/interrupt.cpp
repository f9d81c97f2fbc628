#include "core/io/interrupt.h"

#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <atomic>

namespace gpubench {
namespace {

std::atomic<int> g_signal{0};
std::atomic<pid_t> g_running_group{0};
std::atomic<long long> g_first_ns{0};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<pid_t>::is_always_lock_free &&
                  std::atomic<long long>::is_always_lock_free,
              "read and written from a signal handler");

// What asks gpubench to stop: Ctrl-C, a kill or a launcher's stop, and a hang-up (the SSH
// session or terminal that ran it went away), which would otherwise kill it with no report.
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// A second signal this soon after the first is the same request delivered twice (coreutils
// timeout signals the process and its group; a terminal and a launcher both pass Ctrl-C on).
constexpr long long kSameRequestNs = 500'000'000;

long long monotonic_ns() {  // clock_gettime is async-signal-safe
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<long long>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

void on_interrupt(int signal) {
  const long long now = monotonic_ns();
  long long unset = 0;
  g_first_ns.compare_exchange_strong(unset, now);  // before the flag: a second signal reads it
  int none = 0;
  if (g_signal.compare_exchange_strong(none, signal)) return;  // the first: the waiting loops act on it
  if (now - g_first_ns.load() < kSameRequestNs) return;
  // A second request: no more waiting.
  if (const pid_t group = g_running_group.load(); group > 0) ::kill(-group, SIGKILL);
  ::_exit(128 + signal);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  for (const int signal : kStopSignals) sigaddset(&action.sa_mask, signal);  // one handler at a time
  action.sa_flags = SA_RESTART;
  for (const int signal : kStopSignals) ::sigaction(signal, &action, nullptr);
}

int interrupt_signal() { return g_signal.load(); }

std::string interrupt_signal_name() {
  switch (g_signal.load()) {
    case 0: return "";
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "signal " + std::to_string(g_signal.load());
  }
}

void set_running_group(pid_t group) { g_running_group.store(group); }

void prepare_child_process(pid_t parent, pid_t group) {
  // Until exec this is a copy of the parent: a signal must not just set the copy's flag.
  for (const int signal : kStopSignals) ::signal(signal, SIG_DFL);
  ::setpgid(0, group);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);  // the parent died before prctl: nobody waits for us
}

}  // namespace gpubench
