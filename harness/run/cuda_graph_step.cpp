#include "run/cuda_graph_step.h"

#include <chrono>
#include <stdexcept>

#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>

namespace gpubench {

struct CudaGraphStep::State {
  explicit State(c10::DeviceIndex device)
      : stream(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device)), current(stream) {}
  c10::cuda::CUDAStream stream;
  c10::cuda::CUDAStreamGuard current;  // the side stream is this thread's current stream
  at::cuda::CUDAGraph graph;
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
  state_->stream.synchronize();
  const auto start = std::chrono::steady_clock::now();
  state_->graph.capture_begin();
  try {
    body();
  } catch (...) {
    try {
      state_->graph.capture_end();  // leaves the stream out of capture mode for the error path
    } catch (...) {
    }
    throw;
  }
  state_->graph.capture_end();  // also instantiates the executable graph
  state_->stream.synchronize();
  state_->capture_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  state_->captured = true;
}

void CudaGraphStep::replay() {
  if (!state_->captured) throw std::logic_error("CudaGraphStep::replay before capture");
  state_->graph.replay();
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
