#pragma once
#include <cstdint>
#include <string>

#include <torch/csrc/distributed/c10d/Store.hpp>

namespace gpubench::bench {

// What rank 0 asks the peers to do next. Google Benchmark decides the iteration count of
// each run only as the run starts, so rank 0 sends it before every batch, with the
// collective (collectives.h) the batch runs: the benchmarks of every collective share one
// group and may interleave (--benchmark_enable_random_interleaving).
struct CollectiveCommand {
  std::string collective;
  std::int64_t bytes = 0;
  std::int64_t iterations = 0;
  bool stop = false;
};

// Commands travel through the store under a sequence number, not as a collective: a
// collective would time out while rank 0 runs other benchmarks for minutes, whereas a
// peer may wait for its next command as long as rank 0 lives.
void send_command(c10d::Store& store, std::int64_t sequence, const CollectiveCommand& command);

// Waits for command `sequence` with no deadline: a peer outlives an idle rank 0 but not a
// dead one (PR_SET_PDEATHSIG kills it, and the store's connection closes, which throws).
CollectiveCommand receive_command(c10d::Store& store, std::int64_t sequence);

}  // namespace gpubench::bench
