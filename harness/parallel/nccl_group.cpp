#include "harness/parallel/process_group.h"

#include <dlfcn.h>

#include <chrono>
#include <stdexcept>

#include <c10/cuda/CUDAFunctions.h>

// ProcessGroupNCCL.hpp is empty unless USE_C10D_NCCL is defined; CUDA builds of LibTorch
// on Linux are built with NCCL. Its nccl.h is GPUBENCH_NCCL_INCLUDE (GpubenchFeatures.cmake).
#ifndef USE_C10D_NCCL
#define USE_C10D_NCCL
#endif
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include "harness/parallel/nccl_version.h"

namespace gpubench {
namespace {

// The NCCL libtorch_cuda loaded. Looked up, not linked: the library is LibTorch's
// dependency, not ours (a pip torch loads it from its nvidia-nccl wheel).
std::optional<int> loaded_nccl_version() {
  auto get_version = reinterpret_cast<decltype(&ncclGetVersion)>(dlsym(RTLD_DEFAULT, "ncclGetVersion"));
  int code = 0;
  if (get_version == nullptr || get_version(&code) != ncclSuccess) return std::nullopt;
  return code;
}

// NCCL's watchdog (2.x: TORCH_NCCL_ASYNC_ERROR_HANDLING tears the process down) fires
// this much later than our own bounded waits, so a dead peer is reported by the rank's
// clear error first, and the watchdog only ends what that error could not.
constexpr std::chrono::milliseconds kWatchdogMargin{30000};

}  // namespace

c10::intrusive_ptr<CollectiveGroup> make_nccl_group(const GroupRequest& request) {
  if (c10::cuda::device_count() <= request.cuda_device)
    throw std::runtime_error("NCCL rank " + std::to_string(request.rank) + " needs cuda:" +
                             std::to_string(request.cuda_device) + " and LibTorch sees " +
                             std::to_string(c10::cuda::device_count()) + " CUDA device(s)");
  if (auto mismatch = nccl_header_mismatch(NCCL_VERSION_CODE, loaded_nccl_version())) throw std::runtime_error(*mismatch);
  c10::cuda::set_device(static_cast<c10::DeviceIndex>(request.cuda_device));
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = request.timeout + kWatchdogMargin;
  auto group = c10::make_intrusive<c10d::ProcessGroupNCCL>(request.store, request.rank, request.world_size, options);
  // Each collective's start event is recorded too (one more event record a collective), so
  // its time on NCCL's stream can be read back (device_time_ms): the host sees only when it
  // waited, which at the end of backward is mostly the GPU's remaining compute.
  group->enableCollectivesTiming();
  // The communicator now, inside join's bound, not lazily inside the first broadcast (whose
  // launch, before any Work exists to wait on, would block on a dead peer with no bound).
  // torch 2.11's ProcessGroupNCCL::eagerConnectSingleDevice(at::Device) (ProcessGroupNCCL.hpp;
  // what Python's init_process_group(device_id=...) calls): the unique id through the store,
  // then ncclCommInitRank, which waits for every rank and takes no timeout: run_within bounds it.
  const at::Device device(at::kCUDA, static_cast<c10::DeviceIndex>(request.cuda_device));
  run_within([group, device] { group->eagerConnectSingleDevice(device); }, request.timeout,
             "connecting rank " + std::to_string(request.rank) + "'s NCCL communicator on " + device.str());
  return group;
}

}  // namespace gpubench
