// One fp32 training step (forward, loss, backward, Adam step) per workload, on the CPU
// always and on CUDA where LibTorch has it: the best a config could do with free data,
// so CPU-only users get a ceiling for their training throughput too.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "bench/cuda_availability.h"
#include "bench/registrations.h"
#include "core/device/cuda_memory_stats.h"
#include "core/device/host_memory_limit.h"
#include "harness/run/memory_check.h"
#include "workloads/workload.h"

namespace gpubench::bench {
namespace {

// A few resident batches used in turn, so the step never waits for data (the loader has
// its own benchmark) and does not see one batch's values forever.
constexpr std::int64_t kResidentBatches = 4;

void synchronize(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize();
}

// The matrix's up-front refusal (harness/run/memory_check.h) of this benchmark's one config,
// fp32 at the workload's default batch: a step that cannot fit is skipped with the estimate,
// never grown until the OOM killer ends the whole run (llama on a CPU: 24 GB and counting).
std::optional<std::string> memory_refusal(const std::string& workload_name, const torch::Device& device) {
  Config config;
  config.workload = workload_name;
  config.device = device.is_cuda() ? DeviceKind::Cuda : DeviceKind::Cpu;
  const RunSettings defaults;  // the workload's default batch, as this benchmark takes
  if (device.is_cuda()) return device_memory_refusal(config, defaults, static_cast<double>(cuda_device_memory(0).free_bytes));
  const auto limit = host_memory_limit();
  if (!limit) return std::nullopt;
  return host_memory_fit(config, defaults, static_cast<double>(limit->available_bytes), limit->source).refusal;
}

void train_step_benchmark(benchmark::State& state, const std::string& device_name, const std::string& workload_name) {
  if (device_name == "cuda") {
    if (auto reason = torch_cuda_unavailable_reason()) {
      state.SkipWithError(reason->c_str());
      return;
    }
  }
  const torch::Device device = device_name == "cuda" ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  if (auto why = memory_refusal(workload_name, device)) {
    why->erase(std::min(why->size(), why->find("; a smaller --batch-size")));  // the matrix's flags, not the bench's
    state.SkipWithError(("skipped, as the matrix skips " + workload_name + "/" + device_name + "/fp32: " + *why).c_str());
    return;
  }
  const auto workload = make_workload(workload_name);
  const std::int64_t batch_size = workload->default_batch_size(device.is_cuda() ? DeviceKind::Cuda : DeviceKind::Cpu);
  const auto all = workload->make_dataset({kResidentBatches * batch_size, 1, ""}).first(kResidentBatches * batch_size);
  std::vector<std::pair<torch::Tensor, torch::Tensor>> batches;
  for (std::int64_t i = 0; i < kResidentBatches; ++i)
    batches.emplace_back(all.data.narrow(0, i * batch_size, batch_size).to(device),
                         all.target.narrow(0, i * batch_size, batch_size).to(device));

  Model model = workload->make_model();
  model.module->to(device);
  model.module->train();
  torch::optim::Adam optimizer(model.module->parameters(), torch::optim::AdamOptions(1e-3));
  torch::Tensor loss;
  auto step = [&](std::size_t index) {
    optimizer.zero_grad();
    loss = workload->loss(model.forward(batches[index].first), batches[index].second);
    loss.backward();
    optimizer.step();
  };
  step(0);  // untimed: Adam's state and the allocator's first blocks
  synchronize(device);

  std::size_t index = 0;
  for (auto _ : state) {
    step(index++ % batches.size());
    synchronize(device);
  }
  const double last_loss = loss.item<double>();
  if (!std::isfinite(last_loss)) state.SkipWithError(("loss became " + std::to_string(last_loss)).c_str());
  state.SetItemsProcessed(batch_size * state.iterations());  // samples/s
  state.counters["batch_size"] = static_cast<double>(batch_size);
  state.counters["torch_threads"] = at::get_num_threads();
}

}  // namespace

void register_train_step_benchmarks() {
  for (const std::string device : {"cpu", "cuda"})
    for (const auto& name : workload_names())
      benchmark::RegisterBenchmark(("train_step/" + device + "/" + name).c_str(), train_step_benchmark, device, name)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
}

}  // namespace gpubench::bench
