#pragma once
#include <functional>
#include <memory>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "harness/run/step_graph.h"

namespace gpubench {

// The `graph` variant's engine: one training step (forward, loss, backward, optimizer)
// recorded once into a CUDA Graph (at::cuda::CUDAGraph) and replayed every step after, so
// the step's hundreds of kernels cost one launch. What it takes, as in PyTorch's
// whole-network capture recipe:
//  - a side stream: capture cannot run on the legacy default stream, and the eager
//    warm-up steps run on the stream the capture will use (lazy cuBLAS/allocator set-up
//    done outside the graph). The constructor makes it current for this thread until the
//    object is destroyed, so warm-up, capture, replays and the batch copies share it;
//  - static tensors: the inputs the graph reads are copied into before each replay, the
//    loss it writes is read after; gradients are allocated by the captured backward (set
//    to none before capture) and rewritten by each replay;
//  - the optimizer on the device: fused Adam, whose step counts are device tensors.
// Nothing may synchronize inside the captured body (no .item(), no stream sync).
class CudaGraphStep final : public StepGraph {
 public:
  // Throws std::runtime_error when `device` is not a usable CUDA device.
  explicit CudaGraphStep(torch::Device device);
  ~CudaGraphStep() override;
  CudaGraphStep(const CudaGraphStep&) = delete;
  CudaGraphStep& operator=(const CudaGraphStep&) = delete;

  bool captured() const override;
  // Records `body` into the graph without running it; capture time is measured with the
  // stream idle before and after. First the device is synchronised and the allocator's
  // cache released, as torch.cuda.graph does. A capture that fails (the body throws, CUDA
  // invalidates it, or its instantiation fails) is ended and its pool released, once,
  // before the error is rethrown: the allocator is as before and capture may be tried again.
  void capture(const std::function<void()>& body) override;
  // Launches the recorded step on the side stream (asynchronous, like the eager step).
  void replay() override;
  // {"capture_ms", "replays", "stream", "phases"}: for the result's "cuda_graph" section.
  nlohmann::json describe() const;

 private:
  void end_failed_capture() noexcept;
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpubench
