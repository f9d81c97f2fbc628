#pragma once
#include <functional>
#include <memory>
#include <vector>

#include <torch/torch.h>

#include "core/config/config.h"
#include "harness/profile/probe.h"
#include "harness/run/batch_source.h"
#include "harness/run/loss_readback.h"
#include "harness/run/loss_scaler.h"

namespace gpubench {

// How a config executes on this machine: the device, autocast, loss scaling, how
// batches reach the device, how to wait for the device, and device-specific probes.
// The CPU plan lives in execution_plan.cpp; the CUDA plan in cuda_execution_plan.cpp.
struct ExecutionPlan {
  torch::Device device = torch::kCPU;
  bool autocast = false;
  c10::ScalarType autocast_dtype = torch::kBFloat16;
  std::function<void()> synchronize = [] {};  // --sync-phases: how each phase waits for the device
  // How each step's loss reaches the host one step late (null: it is computed on the host).
  std::shared_ptr<LossReadback> loss_readback;
  std::vector<torch::Device> data_parallel_devices;
  std::unique_ptr<LossScaler> scaler = std::make_unique<PassThroughScaler>();
  std::vector<std::shared_ptr<Probe>> probes;
  // Device allocator snapshot per step for the memory sampler (CUDA); null on CPU.
  std::function<nlohmann::json()> device_memory_stats;
  std::function<std::unique_ptr<BatchSource>(Dataset, LoaderOptions)> make_batch_source;
};

// Throws std::runtime_error when the config cannot run here (the runner checks first,
// so this is a last line of defence with a clear reason).
ExecutionPlan plan_execution(const Config& config);

}  // namespace gpubench
