#include "bench/collective_group.h"

#include <string>

#include "bench/cuda_availability.h"
#include "harness/parallel/process_group.h"

namespace gpubench::bench {

std::optional<std::string> backend_unavailable_reason(const std::string& backend, int world) {
  // The machine's reason first: "no CUDA device: ..." says more than "no NCCL" on a CPU box.
  if (backend == "nccl")
    if (auto reason = torch_cuda_unavailable_reason(world)) return reason;
  return gpubench::backend_unavailable_reason(backend);
}

int backend_world_size(const std::string& backend) {
  if (backend == "nccl") return static_cast<int>(torch::cuda::device_count());
  return 2;
}

torch::Device backend_device(const std::string& backend, int rank) {
  if (backend == "nccl") return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(rank));
  return torch::kCPU;
}

c10::intrusive_ptr<c10d::TCPStore> make_loopback_store(bool server, std::uint16_t port) {
  c10d::TCPStoreOptions options;
  options.port = port;
  options.isServer = server;
  // Do not wait for workers in the constructor: the peers learn the port only after it.
  options.waitWorkers = false;
  options.timeout = kCollectiveTimeout;
  return c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options);
}

c10::intrusive_ptr<CollectiveGroup> make_collective_group(const std::string& backend,
                                                          const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                                          int world) {
  // The DDP harness's own groups (harness/parallel), so the benchmark measures the
  // collectives the training configs use: loopback Gloo, NCCL on cuda:rank.
  gpubench::GroupRequest request;
  request.backend = backend;
  request.store = store;
  request.rank = rank;
  request.world_size = world;
  request.timeout = kCollectiveTimeout;
  request.all_ranks_local = true;
  const torch::Device device = backend_device(backend, rank);  // the one place that picks it
  request.cuda_device = device.is_cuda() ? device.index() : 0;
  return gpubench::make_process_group(request);
}

}  // namespace gpubench::bench
