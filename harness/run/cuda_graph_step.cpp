#include "harness/run/cuda_graph_step.h"

#include <chrono>
#include <stdexcept>

#include <cuda_runtime_api.h>

#include <ATen/core/CachingHostAllocator.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>

namespace gpubench {

struct CudaGraphStep::State {
  explicit State(c10::DeviceIndex device)
      : device(device),
        stream(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device)),
        current(stream),
        graph(std::make_unique<at::cuda::CUDAGraph>()) {}
  c10::DeviceIndex device;
  c10::cuda::CUDAStream stream;
  c10::cuda::CUDAStreamGuard current;  // the side stream is this thread's current stream
  // Our own pool handle, so the error path can end and release it: CUDAGraph keeps the id
  // of a pool it made itself private until a capture succeeds.
  c10::MempoolId_t pool = at::cuda::graph_pool_handle();
  std::unique_ptr<at::cuda::CUDAGraph> graph;
  bool captured = false;
  double capture_ms = 0;
  std::int64_t replays = 0;
};

CudaGraphStep::CudaGraphStep(torch::Device device) {
  if (!device.is_cuda()) throw std::runtime_error("a CUDA Graph needs a CUDA device, not " + device.str());
  if (torch::cuda::device_count() < 1) throw std::runtime_error("a CUDA Graph needs a CUDA device: LibTorch sees none");
  const c10::DeviceIndex index = device.has_index() ? device.index() : c10::cuda::current_device();
  // Work already queued on the default stream (the model's upload) comes first.
  c10::cuda::device_synchronize();
  state_ = std::make_unique<State>(index);
}

CudaGraphStep::~CudaGraphStep() {
  // Replays still running read tensors that are about to go (destructors must not throw).
  try {
    state_->stream.synchronize();
  } catch (...) {
  }
}

bool CudaGraphStep::captured() const { return state_->captured; }

void CudaGraphStep::capture(const std::function<void()>& body) {
  if (state_->captured) throw std::logic_error("CudaGraphStep::capture: the step is already captured");
  // As Python's torch.cuda.graph does before capture_begin: what the eager warm-up left
  // cached stays in the normal pool, which the graph's private pool cannot use, so a step
  // that fills most of the GPU would need a second set of activations during capture.
  c10::cuda::device_synchronize();
  c10::cuda::CUDACachingAllocator::emptyCache();
  const auto start = std::chrono::steady_clock::now();
  try {
    state_->graph->capture_begin(state_->pool);
    body();
    state_->graph->capture_end();  // also instantiates the executable graph
  } catch (...) {
    end_failed_capture();
    throw;
  }
  state_->stream.synchronize();
  state_->capture_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  state_->captured = true;
}

// CUDAGraph::capture_end throws at cudaStreamEndCapture when the capture was invalidated
// (a sync or an unsupported call in the body), before it tells the caching allocators that
// the capture is over: they would go on treating every later allocation as possibly
// captured and keep the pool's memory forever, and the next in-process GPU user (a test, the
// next config) would run on that state. Each step is best-effort: which ones are still
// needed depends on where the capture failed.
//
// Once capture_end has counted the capture as ended (it failed later, at instantiation),
// the pool is CUDAGraph's to release: its reset() does, and so would its destructor, so
// releasing it here as well made the destructor's second release assert inside a
// destructor (std::terminate). Its pool() answers only for an ended capture.
void CudaGraphStep::end_failed_capture() noexcept {
  const auto quietly = [](auto&& action) {
    try {
      action();
    } catch (...) {
    }
  };
  bool graph_releases_pool = false;
  quietly([&] {
    (void)state_->graph->pool();
    graph_releases_pool = true;
  });
  if (graph_releases_pool) {
    quietly([&] { state_->graph->reset(); });  // the pool, once; the graph and its executable
  } else {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(state_->stream.stream(), &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
      cudaGraph_t partial = nullptr;
      if (cudaStreamEndCapture(state_->stream.stream(), &partial) == cudaSuccess && partial) cudaGraphDestroy(partial);
    }
    quietly([&] { c10::cuda::CUDACachingAllocator::endAllocateToPool(state_->device, state_->pool); });
    quietly([&] { at::getHostAllocator(at::kCUDA)->end_allocate_to_pool(state_->pool); });
    quietly([&] { c10::cuda::CUDACachingAllocator::releasePool(state_->device, state_->pool); });
    quietly([&] { at::getHostAllocator(at::kCUDA)->release_pool(state_->pool); });
  }
  (void)cudaGetLastError();  // the capture's error is the exception being rethrown, not the next call's
  // A fresh graph object (its reset() drops the capture id and generator states) and pool:
  // a second capture starts clean.
  quietly([&] { state_->graph = std::make_unique<at::cuda::CUDAGraph>(); });
  state_->pool = at::cuda::graph_pool_handle();
}

void CudaGraphStep::replay() {
  if (!state_->captured) throw std::logic_error("CudaGraphStep::replay before capture");
  state_->graph->replay();
  ++state_->replays;
}

nlohmann::json CudaGraphStep::describe() const {
  return {{"capture_ms", state_->capture_ms},
          {"replays", state_->replays},
          {"stream", "side stream (pool), current for the whole run: eager warm-up, capture, replays, batch copies"},
          {"phases",
           "forward holds the replayed step (forward, loss, backward, fused Adam); backward and optimizer are empty; "
           "h2d also copies the batch into the graph's static input"}};
}

}  // namespace gpubench
