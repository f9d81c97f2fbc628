#pragma once
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "bench/collective_group.h"
#include "bench/collectives.h"
#include "bench/peer_process.h"

namespace gpubench::bench {

// The hidden command line a peer is started with; main() hands it to run_collective_peer.
constexpr const char* kCollectivePeerFlag = "--gpubench-collective-peer";

// Rank 0's end of a backend's collective group: the store, the group, and the peer
// processes that are ranks 1..world-1. Started on first use by a backend's benchmarks and
// kept for all of them, of every collective (the rendezvous costs about a second); torn
// down by shutdown_collective_sessions.
class CollectiveSession {
 public:
  // The live session for `backend`, started if needed. Throws when it cannot start.
  static CollectiveSession& get(const std::string& backend);
  // After a failure mid-batch the ranks are out of step: kill the peers, start afresh next time.
  static void discard(const std::string& backend);

  CollectiveGroup& group() { return *group_; }
  int world() const { return world_; }
  // Tells the peers to run `iterations` of `collective` (collectives.h) at `bytes` next.
  void send_batch(const Collective& collective, std::int64_t bytes, std::int64_t iterations);
  torch::Device device() const { return backend_device(backend_, 0); }

  CollectiveSession(const std::string& backend, int world);
  ~CollectiveSession();  // tells the peers to stop, waits (bounded), kills what is left
  CollectiveSession(const CollectiveSession&) = delete;
  CollectiveSession& operator=(const CollectiveSession&) = delete;

 private:
  std::string backend_;
  int world_;
  c10::intrusive_ptr<c10d::TCPStore> store_;
  std::vector<std::unique_ptr<PeerProcess>> peers_;
  c10::intrusive_ptr<CollectiveGroup> group_;
  std::int64_t sequence_ = 0;  // of the next command
  // Set by discard(): a collective may be pending on a dead peer, and 2.x's NCCL shutdown()
  // would wait for it: the group is released to the process exit instead.
  bool failed_ = false;
};

// Ends every session; main() calls it after the benchmarks ran.
void shutdown_collective_sessions();

// A peer's whole life: join the group named by `arguments` (backend, port, rank, world),
// then run whatever batches rank 0 sends until it says stop. Returns the exit code.
int run_collective_peer(const std::vector<std::string>& arguments);

}  // namespace gpubench::bench
