#pragma once
#include <sys/types.h>

#include <string>

namespace gpubench {

// How gpubench's matrix (and tune) parent and its children end (DESIGN.md, "Process
// boundaries"):
//  - the first SIGINT, SIGTERM or SIGHUP (a dropped SSH session) sets a flag: the process
//    waiting on a config's child (or DDP ranks) ends that process group (with the same
//    signal, SIGKILL after a grace), and the matrix marks what it did not run `not run:
//    interrupted`, writes its report and exits 128+signal (tune writes the search so far);
//  - a second one (more than 0.5 s later: sooner is the same request delivered twice) kills
//    the running process group at once and exits 128+signal;
//  - every child is its own process group's member (one group per config) and dies with
//    its parent (PR_SET_PDEATHSIG), so a SIGKILLed gpubench leaves no training behind.
void install_interrupt_handlers();

// The signal that interrupted this process (SIGINT, SIGTERM, SIGHUP), or 0.
int interrupt_signal();
std::string interrupt_signal_name();  // "SIGINT", "SIGTERM", "SIGHUP"; "" when not interrupted

// The process group a second signal kills (a config's child or DDP ranks); 0: none.
void set_running_group(pid_t group);

// Between fork and exec in a child (async-signal-safe only): joins process group `group`
// (0: a new one of its own), and gets SIGKILL when `parent` ends; exits at once if the
// parent is already gone.
void prepare_child_process(pid_t parent, pid_t group);

}  // namespace gpubench
