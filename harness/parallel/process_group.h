#pragma once
#include <chrono>
#include <optional>
#include <string>

#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <torch/torch.h>

#include "device/compat.h"

namespace gpubench {

using compat::CollectiveGroup;

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

// Why `backend` cannot run in this build, or nullopt when it can. Decided at build time
// only: the matrix parent must not touch CUDA (the ranks' devices are checked by the
// capability's CUDA part and by the ranks themselves).
std::optional<std::string> backend_unavailable_reason(const std::string& backend);

// Joins the group: blocks until every rank joined (or the timeout: throws).
c10::intrusive_ptr<CollectiveGroup> make_process_group(const GroupRequest& request);

// Implemented by gloo_group.cpp (when this LibTorch ships Gloo's headers) or gloo_stub.cpp,
// and by nccl_group.cpp (only where LibTorch has CUDA).
std::optional<std::string> gloo_unavailable_reason();
c10::intrusive_ptr<CollectiveGroup> make_gloo_group(const GroupRequest& request);
#if GPUBENCH_TORCH_CUDA
c10::intrusive_ptr<CollectiveGroup> make_nccl_group(const GroupRequest& request);
#endif

}  // namespace gpubench
