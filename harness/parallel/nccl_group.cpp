// Compiled only where LibTorch has CUDA (GPUBENCH_TORCH_CUDA); syntax-checked elsewhere
// (tests/harness/parallel/CMakeLists.txt). One CUDA device per rank: the rank's launcher
// narrows CUDA_VISIBLE_DEVICES to its LOCAL_RANK's device, so it is cuda:0 here.
#include "parallel/process_group.h"

#include <stdexcept>

#include <c10/cuda/CUDAFunctions.h>

// ProcessGroupNCCL.hpp is empty unless USE_C10D_NCCL is defined; CUDA builds of LibTorch
// on Linux are built with NCCL.
#ifndef USE_C10D_NCCL
#define USE_C10D_NCCL
#endif
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

namespace gpubench {

c10::intrusive_ptr<CollectiveGroup> make_nccl_group(const GroupRequest& request) {
  if (c10::cuda::device_count() < 1) throw std::runtime_error("NCCL needs a CUDA device and LibTorch sees none");
  c10::cuda::set_device(0);
  auto options = c10d::ProcessGroupNCCL::Options::create();
  // NCCL's watchdog aborts a collective (and, with TORCH_NCCL_ASYNC_ERROR_HANDLING, the
  // process) after this long: a dead peer ends the rank instead of hanging it.
  options->timeout = request.timeout;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(request.store, request.rank, request.world_size, options);
}

}  // namespace gpubench
