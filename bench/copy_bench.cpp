// Host<->device and device<->device copy bandwidth: the ceilings for the H2D phase
// (pinned vs pageable) and for memory-bound kernels (device-to-device, the HBM ceiling).
// Needs only the CUDA runtime, so it builds on every machine with the toolkit.
#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/cuda_availability.h"
#include "bench/registrations.h"

#include "bench/cuda_copy_buffers.h"

namespace gpubench::bench {
namespace {

enum class Direction { HostToDevice, DeviceToHost, DeviceToDevice };

// 4 KiB (latency-bound) to 1 GiB (bandwidth-bound), x16 apart.
const std::vector<std::int64_t> kCopySizes = {4LL << 10, 64LL << 10, 1LL << 20, 16LL << 20, 256LL << 20, 1LL << 30};

void measure_copies(benchmark::State& state, Direction direction, bool pinned) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  cuda_check(cudaSetDevice(0), "cudaSetDevice");
  DeviceBuffer device(bytes);
  CopyTimer timer;
  if (direction == Direction::DeviceToDevice) {
    DeviceBuffer other(bytes);
    for (auto _ : state) state.SetIterationTime(timer.time_copy(other.data(), device.data(), bytes, cudaMemcpyDeviceToDevice));
    // A device-to-device copy reads and writes every byte: count both, as nvbandwidth and
    // bandwidthTest do, so the number compares with the HBM bandwidth on the data sheet.
    state.SetBytesProcessed(2 * static_cast<std::int64_t>(bytes) * state.iterations());
    return;
  }
  HostBuffer host(bytes, pinned ? HostMemory::Pinned : HostMemory::Pageable);
  for (auto _ : state) {
    const double seconds = direction == Direction::HostToDevice
                               ? timer.time_copy(device.data(), host.data(), bytes, cudaMemcpyHostToDevice)
                               : timer.time_copy(host.data(), device.data(), bytes, cudaMemcpyDeviceToHost);
    state.SetIterationTime(seconds);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
}

void copy_benchmark(benchmark::State& state, Direction direction, bool pinned) {
  if (auto reason = cudart_unavailable_reason()) {
    state.SkipWithError(reason->c_str());
    return;
  }
  try {
    measure_copies(state, direction, pinned);
  } catch (const std::exception& error) {  // out of memory for 1 GiB, a lost device: say so, go on
    state.SkipWithError(error.what());
  }
}

void register_copy(const std::string& name, Direction direction, bool pinned) {
  auto* benchmark = benchmark::RegisterBenchmark(name.c_str(), copy_benchmark, direction, pinned);
  benchmark->ArgName("bytes")->UseManualTime()->Unit(benchmark::kMicrosecond);
  for (const auto size : kCopySizes) benchmark->Arg(size);
}

}  // namespace

void register_copy_benchmarks() {
  register_copy("copy/h2d/pinned", Direction::HostToDevice, true);
  register_copy("copy/h2d/pageable", Direction::HostToDevice, false);
  register_copy("copy/d2h/pinned", Direction::DeviceToHost, true);
  register_copy("copy/d2h/pageable", Direction::DeviceToHost, false);
  register_copy("copy/d2d", Direction::DeviceToDevice, true);
}

}  // namespace gpubench::bench
