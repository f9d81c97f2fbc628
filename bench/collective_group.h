#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

#include "harness/parallel/process_group.h"

namespace gpubench::bench {

using gpubench::CollectiveGroup;

// Every wait in a collective benchmark is bounded by this: rendezvous, each collective,
// the peer's exit. A dead or wedged peer costs one benchmark this long, never a hang.
constexpr std::chrono::milliseconds kCollectiveTimeout{30000};

// Why `backend` ("gloo", "nccl") cannot run `world` ranks here, or nullopt when it can.
std::optional<std::string> backend_unavailable_reason(const std::string& backend, int world);

// The number of ranks a backend's benchmark uses: 2 processes for gloo (a DDP pair on one
// host), one per CUDA device for nccl (as nccl-tests does).
int backend_world_size(const std::string& backend);

// Where rank `rank` keeps its buffers: the CPU for gloo, cuda:rank for nccl.
torch::Device backend_device(const std::string& backend, int rank);

// A TCPStore on 127.0.0.1. The server (port 0) takes a free port from the kernel, so
// parallel runs (ctest -j) never collide; ask it for getPort() and hand that to peers.
c10::intrusive_ptr<c10d::TCPStore> make_loopback_store(bool server, std::uint16_t port);

// Joins the group through `store`; blocks until all `world` ranks joined or the timeout.
c10::intrusive_ptr<CollectiveGroup> make_collective_group(const std::string& backend,
                                                          const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                                          int world);

}  // namespace gpubench::bench
