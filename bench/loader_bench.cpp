// Input-pipeline throughput: the project's datasets through LoaderBatchSource (the
// trainer's own DataLoader path) by worker count. The ceiling for the Data phase: a
// config cannot train faster than its loader can hand out batches.
#include <map>
#include <string>

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "bench/registrations.h"
#include "harness/run/batch_source.h"
#include "workloads/workload.h"

namespace gpubench::bench {
namespace {

// The default preset's dataset, built once per workload: building it is not the loader's cost.
const Dataset& cached_dataset(const Workload& workload) {
  static std::map<std::string, Dataset> datasets;
  auto found = datasets.find(workload.name());
  if (found == datasets.end())
    found = datasets.emplace(workload.name(), workload.make_dataset({workload.base_dataset_samples(), 1, ""})).first;
  return found->second;
}

std::int64_t batch_bytes(const Batch& batch) {
  return static_cast<std::int64_t>(batch.data.nbytes() + batch.target.nbytes());
}

void loader_benchmark(benchmark::State& state, const std::string& workload_name) {
  const auto workload = make_workload(workload_name);
  LoaderOptions options;
  options.batch_size = workload->default_batch_size(DeviceKind::Cpu);
  options.workers = static_cast<int>(state.range(0));
  LoaderBatchSource source(cached_dataset(*workload), options, torch::kCPU);
  const std::int64_t bytes_per_batch = batch_bytes(source.next());  // also starts the workers, untimed
  for (auto _ : state) {
    Batch batch = source.next();
    benchmark::DoNotOptimize(batch.data.data_ptr());
  }
  state.SetItemsProcessed(options.batch_size * state.iterations());  // samples/s
  state.SetBytesProcessed(bytes_per_batch * state.iterations());
  state.counters["batch_size"] = static_cast<double>(options.batch_size);
}

}  // namespace

void register_loader_benchmarks() {
  for (const auto& name : workload_names()) {
    auto* benchmark = benchmark::RegisterBenchmark(("loader/" + name).c_str(), loader_benchmark, name);
    // Real time: worker threads do the work, the benchmark thread mostly waits.
    benchmark->ArgName("workers")->Arg(0)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace gpubench::bench
