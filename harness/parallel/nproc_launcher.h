#pragma once
#include <string>
#include <vector>

namespace gpubench {

// `gpubench --nproc N ...`: a one-host torchrun. Hosts the rendezvous TCPStore on
// 127.0.0.1 (a free port the kernel picks), starts N copies of `argv` (the command line
// without --nproc) with RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT set per
// rank, and waits for all of them. Rank 0 writes the report and prints; the others stay
// quiet. A rank still running kPeerGrace_s + kTermGrace_s (8 s) after rank 0 exited is
// stalled and is killed. Returns rank 0's exit code, or the first other rank's non-zero
// one (a killed stalled rank's aside). Throws UsageError when this process is itself
// already a rank of a distributed launch.
int run_nproc_launcher(int nproc, const std::vector<std::string>& argv);

// argv without `--nproc N` / `--nproc=N`.
std::vector<std::string> without_nproc_flag(const std::vector<std::string>& argv);

}  // namespace gpubench
