#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <torch/torch.h>

namespace gpubench {

// A c10d backend (Gloo, NCCL): allreduce, broadcast, barrier, each returning a Work.
using CollectiveGroup = c10d::Backend;

struct GroupRequest {
  std::string backend;  // "gloo" (CPU tensors) or "nccl" (CUDA tensors, one device per rank)
  c10::intrusive_ptr<c10d::Store> store;
  int rank = 0;
  int world_size = 1;
  std::chrono::milliseconds timeout{60000};  // every collective, and joining itself
  // Gloo binds its sockets to this address: 127.0.0.1 when every rank is on this host,
  // else this host's name (or GLOO_SOCKET_IFNAME), as PyTorch's default device does.
  bool all_ranks_local = true;
  // nccl: the CUDA device this rank uses. 0 for the launchers' ranks (each one's
  // CUDA_VISIBLE_DEVICES is narrowed to its LOCAL_RANK's device); the all-reduce
  // benchmark's ranks see every device and use cuda:rank.
  int cuda_device = 0;
};

// The backend a config's device uses: gloo on CPU, nccl on CUDA.
std::string backend_for(const torch::Device& device);

// Why `backend` is not one this build has (gloo, nccl), or nullopt. Needs no device: the
// ranks' devices are checked by the capability's CUDA part and by the ranks themselves.
std::optional<std::string> backend_unavailable_reason(const std::string& backend);

// Joins the group: blocks until every rank joined (or the timeout: throws).
c10::intrusive_ptr<CollectiveGroup> make_process_group(const GroupRequest& request);

// Ends a group that finished its work: shutdown() (2.x's ProcessGroupNCCL otherwise warns
// and aborts its communicators in the destructor), then releases it. Never throws: a
// failing shutdown is left to the process exit.
void shutdown_group(c10::intrusive_ptr<CollectiveGroup>& group) noexcept;

// Blocks until `work` (a collective of `group`) is done, at most `timeout` (then throws
// "did not complete within"), and rethrows its error. Gloo's wait(timeout) sleeps on a
// condition variable; NCCL's (2.x) sleeps 1 ms between checks, which would charge up to a
// millisecond to every gradient bucket not done at the first check and floor the all-reduce
// benchmark at ~1 ms: for NCCL the host polls isCompleted() itself, then wait() adds the
// stream dependency (done by then).
void wait_collective(const CollectiveGroup& group, c10d::Work& work, std::chrono::milliseconds timeout);

// A finished collective's time on the device, from its backend's own start and end events
// (Work::getDuration: NCCL's, once the group's enableCollectivesTiming is on), in ms; nullopt
// where the backend does not time it (Gloo) or the events are not there or not done.
std::optional<double> device_time_ms(const c10d::Work& work);

// Runs `call` -- a blocking call into a backend that takes no bound of its own (NCCL's
// communicator setup waits for every peer) -- on a thread of its own, and waits at most
// `timeout`: throws naming `what` and the bound when it has not returned by then, and
// rethrows what it threw. A call that never returns is left blocked on its thread (what it
// uses it holds) until the process exits: the rank fails with the named error, not a hang.
void run_within(std::function<void()> call, std::chrono::milliseconds timeout, const std::string& what);

// An error's message for a rank's failure: a c10::Error's without its C++ backtrace.
std::string message_of(const std::exception& error);

// Implemented by gloo_group.cpp and nccl_group.cpp.
c10::intrusive_ptr<CollectiveGroup> make_gloo_group(const GroupRequest& request);
c10::intrusive_ptr<CollectiveGroup> make_nccl_group(const GroupRequest& request);

}  // namespace gpubench
