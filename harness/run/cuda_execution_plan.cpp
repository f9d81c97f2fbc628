#include "harness/run/cuda_execution_plan.h"

#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>

#include "core/device/cuda_memory_stats.h"
#include "harness/run/capability.h"
#include "harness/run/cuda_event_clock.h"
#include "harness/run/cuda_loss_readback.h"
#include "harness/run/float32_math.h"
#include "harness/run/grad_scaler.h"
#include "harness/run/pinned_batch_source.h"

namespace gpubench {
namespace {

// The caching allocator's peaks over the measured steps: reset when the first measured
// step begins (warm-up growth is excluded, memory still held from it is not), read at
// the end of the run. Writes result["memory"]["cuda_peak_allocated_bytes"] and
// ["cuda_peak_reserved_bytes"] (sums over the devices the config used) and the per-device
// values, merging with what other probes put in result["memory"].
class CudaMemoryProbe final : public Probe {
 public:
  explicit CudaMemoryProbe(std::vector<int> devices) : devices_(std::move(devices)) {}
  std::string name() const override { return "cuda_memory"; }

  void run_begin(const std::string&) override {
    window_started_ = false;
    peaks_.clear();
  }
  void step_begin(int, bool measured) override {
    if (!measured || window_started_) return;
    for (int device : devices_) reset_cuda_peak_stats(device);  // host-side counters: no device sync
    window_started_ = true;
  }
  void run_end() override { peaks_ = read(); }

  void write_result(nlohmann::json& result) const override {
    const std::vector<CudaAllocatorStats> peaks = peaks_.empty() ? read() : peaks_;
    std::int64_t allocated = 0, reserved = 0;
    nlohmann::json per_device = nlohmann::json::array();
    for (const auto& stats : peaks) {
      allocated += stats.peak_allocated_bytes;
      reserved += stats.peak_reserved_bytes;
      per_device.push_back({{"device", stats.device},
                            {"peak_allocated_bytes", stats.peak_allocated_bytes},
                            {"peak_reserved_bytes", stats.peak_reserved_bytes}});
    }
    nlohmann::json& memory = result["memory"];
    if (!memory.is_object()) memory = nlohmann::json::object();
    memory["cuda_peak_allocated_bytes"] = allocated;
    memory["cuda_peak_reserved_bytes"] = reserved;
    memory["cuda_peak_per_device"] = per_device;
    memory["cuda_peak_window"] = window_started_ ? "measured steps (peaks reset after warm-up)" : "whole run";
  }

 private:
  std::vector<CudaAllocatorStats> read() const {
    std::vector<CudaAllocatorStats> stats;
    for (int device : devices_) stats.push_back(cuda_allocator_stats(device));
    return stats;
  }

  std::vector<int> devices_;
  bool window_started_ = false;
  std::vector<CudaAllocatorStats> peaks_;
};

// Writes a fixed section into the result (what the plan decided, for the reader).
class ResultSectionProbe final : public Probe {
 public:
  ResultSectionProbe(std::string key, nlohmann::json value) : key_(std::move(key)), value_(std::move(value)) {}
  std::string name() const override { return key_; }
  void write_result(nlohmann::json& result) const override { result[key_] = value_; }

 private:
  std::string key_;
  nlohmann::json value_;
};

std::string device_name(int device) {
  const cudaDeviceProp* props = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(device));
  return props != nullptr ? props->name : "?";
}

// Whether the device has what `need` asks for.
bool has_compute_capability(int device, const ComputeCapability& need) {
  const cudaDeviceProp* props = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(device));
  return props != nullptr && need.met_by(props->major, props->minor);
}

// What the fp8 precision runs, for the row (workloads/fp8_linear.h has the why).
nlohmann::json fp8_recipe() {
  return {{"recipe", "dynamic tensorwise scaling (torchao Float8Linear's default): one scale per tensor per cast, "
                     "fp8 max / amax, no amax history"},
          {"layers", "every Linear of gpt2's blocks (attn.c_attn, attn.c_proj, mlp.c_fc, mlp.c_proj)"},
          {"input_and_weight", "float8_e4m3fn"},
          {"grad_output", "float8_e5m2"},
          {"matmul", "at::_scaled_mm with inverse scales; fast accumulation in the forward only"},
          {"rest", "bf16 autocast (the tied LM head, attention, LayerNorm, embeddings, loss in fp32)"}};
}

// LibTorch's data_parallel runs the module itself on one device, but on several it deep-
// clones it onto each (Module::clone) and drops the clones after the step: BatchNorm's
// running mean/var, updated in the clones, never reach the model. Python's DataParallel
// broadcasts buffers instead, so cuda:0's replica updates the originals in place.
std::string data_parallel_buffer_note(int devices) {
  if (devices == 1) return "updated: with one device data_parallel runs the module itself (no clone)";
  return "not updated: LibTorch's data_parallel trains clones of the module and drops them each step, so "
         "BatchNorm running mean/var keep their initial values (Python's DataParallel keeps cuda:0's updates); "
         "eval-mode outputs of a model with BatchNorm differ from one-device training";
}

}  // namespace

ExecutionPlan plan_cuda_execution(const Config& config) {
  if (config.device != DeviceKind::Cuda) throw std::runtime_error(config.id() + ": not a CUDA config");
  if (config.multi_rank())
    throw std::runtime_error(config.id() + ": a multi-rank config runs one process per rank, not this plan");
  const int device_count = static_cast<int>(torch::cuda::device_count());
  if (device_count < 1) throw std::runtime_error(config.id() + ": LibTorch sees no CUDA device");

  ExecutionPlan plan;
  plan.device = torch::Device(torch::kCUDA, 0);
  std::vector<int> devices = {0};
  if (config.parallel == ParallelMode::DataParallel) {
    devices.clear();
    for (int device = 0; device < device_count; ++device) {
      devices.push_back(device);
      plan.data_parallel_devices.emplace_back(torch::kCUDA, static_cast<c10::DeviceIndex>(device));
    }
    plan.probes.push_back(std::make_shared<ResultSectionProbe>(
        "parallel", nlohmann::json{{"mode", "dp"},
                                   {"devices", device_count},
                                   {"device_ids", devices},
                                   {"implementation",
                                    "torch::nn::parallel::data_parallel: scatters the batch, replicates the module "
                                    "onto every device each step, gathers the outputs on cuda:0"},
                                   {"batch_norm_running_stats", data_parallel_buffer_note(device_count)}}));
  }

  plan.probes.push_back(std::make_shared<ResultSectionProbe>("float32_math", apply_float32_math(config.precision)));
  if (const auto need = minimum_compute_capability(config.precision); need && !has_compute_capability(0, *need))
    throw std::runtime_error(config.id() + ": " + device_name(0) + " lacks " + need->what + " (needs compute capability " +
                             need->text() + "+)");
  switch (config.precision) {
    case Precision::Fp32:
    case Precision::Tf32: break;  // apply_float32_math set their matmul and convolution math
    case Precision::AmpFp16:
      plan.autocast = true;
      plan.autocast_dtype = torch::kHalf;
      plan.scaler = std::make_unique<GradScaler>();
      break;
    case Precision::Fp8:
      plan.autocast = true;
      plan.autocast_dtype = torch::kBFloat16;
      plan.probes.push_back(std::make_shared<ResultSectionProbe>("fp8", fp8_recipe()));
      break;
    case Precision::AmpBf16:
      plan.autocast = true;
      plan.autocast_dtype = torch::kBFloat16;
      break;
    case Precision::Bf16: throw std::runtime_error(config.id() + ": bf16 is a CPU precision; on CUDA use amp-bf16");
  }

  // With --sync-phases each phase ends when the compute streams are idle: the default
  // stream of every device the step used (data_parallel's replicas run on those). Not
  // torch::cuda::synchronize():
  // a device-wide sync would also wait for the pinned source's prefetch on its copy stream
  // and charge that copy to whichever phase is running, hiding the overlap pinned memory
  // buys. For pageable configs both are the same (their copy runs on the compute stream).
  plan.synchronize = [devices] {
    for (int device : devices) c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device)).synchronize();
  };

  const bool pinned = config.host_memory == HostMemory::Pinned;
  auto h2d = std::make_shared<H2dCopyStats>(pinned ? "pinned: page-locked buffers, non_blocking copy on a side stream, next batch prefetched"
                                                   : "pageable: blocking copy from ordinary host memory");
  plan.probes.push_back(h2d);
  const torch::Device device = plan.device;
  plan.make_batch_source = [device, h2d, pinned](Dataset dataset, LoaderOptions options) -> std::unique_ptr<BatchSource> {
    if (pinned)
      return std::make_unique<PinnedBatchSource>(
          std::make_unique<LoaderBatchSource>(std::move(dataset), options, torch::kCPU), device, h2d);
    return std::make_unique<CopyTimedBatchSource>(std::make_unique<LoaderBatchSource>(std::move(dataset), options, device),
                                                  device, h2d);
  };

  plan.loss_readback = make_cuda_loss_readback();
  // The device's time per phase, from CUDA events on the compute stream of device 0 (where
  // data_parallel gathers its replicas' outputs, and each DDP rank's own device).
  plan.probes.push_back(std::make_shared<DevicePhaseTimer>(make_cuda_event_clock(0)));
  plan.probes.push_back(std::make_shared<CudaMemoryProbe>(devices));
  plan.device_memory_stats = cuda_memory_callback(devices);
  plan.probes.push_back(std::make_shared<ResultSectionProbe>(
      "cuda", nlohmann::json{{"device", device_name(0)},
                             {"visible_devices", device_count}}));
  return plan;
}

}  // namespace gpubench
