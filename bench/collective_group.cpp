#include "bench/collective_group.h"

#include <stdexcept>
#include <string>

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include "bench/cuda_availability.h"

// NCCL's c10d header is usable only where LibTorch was built with it (USE_C10D_NCCL comes
// with the torch_cuda target); elsewhere the nccl benchmarks skip with that reason.
#if GPUBENCH_TORCH_CUDA && defined(USE_C10D_NCCL)
#define GPUBENCH_BENCH_NCCL 1
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#else
#define GPUBENCH_BENCH_NCCL 0
#endif

namespace gpubench::bench {

std::optional<std::string> backend_unavailable_reason(const std::string& backend, int world) {
  if (backend == "gloo") return std::nullopt;
  if (backend != "nccl") return "unknown collective backend '" + backend + "', expected gloo or nccl";
  // The machine's reason first: "no CUDA device: ..." says more than "no NCCL" on a CPU box.
  if (auto reason = torch_cuda_unavailable_reason(world)) return reason;
#if GPUBENCH_BENCH_NCCL
  return std::nullopt;
#else
  return std::string("LibTorch was built without NCCL (USE_C10D_NCCL not defined)");
#endif
}

int backend_world_size(const std::string& backend) {
#if GPUBENCH_TORCH_CUDA
  if (backend == "nccl") return static_cast<int>(torch::cuda::device_count());
#endif
  (void)backend;
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
  if (backend == "gloo") {
    auto options = c10d::ProcessGroupGloo::Options::create(kCollectiveTimeout);
    // Loopback only: the benchmark measures this host, and must not depend on its hostname resolving.
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world, options);
  }
#if GPUBENCH_BENCH_NCCL
  if (backend == "nccl") {
    c10::cuda::set_device(static_cast<c10::DeviceIndex>(rank));
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = kCollectiveTimeout;
    return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, world, options);
  }
#endif
  throw std::runtime_error(backend_unavailable_reason(backend, world).value_or("backend '" + backend + "' unavailable"));
}

}  // namespace gpubench::bench
