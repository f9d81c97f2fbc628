#pragma once
// cudart-only helpers for the copy benchmarks.
#include <cstddef>
#include <memory>

#include <cuda_runtime_api.h>

namespace gpubench::bench {

// Throws std::runtime_error naming the call and the runtime's message.
void cuda_check(cudaError_t status, const char* call);

enum class HostMemory { Pinned, Pageable };

// Host memory filled with a non-zero pattern. Pageable memory is written page by page
// here, so the first timed copy does not pay the kernel's first-touch page faults.
class HostBuffer {
 public:
  HostBuffer(std::size_t bytes, HostMemory kind);
  ~HostBuffer();
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  void* data() { return data_; }

 private:
  HostMemory kind_;
  void* data_ = nullptr;
  std::unique_ptr<unsigned char[]> pageable_;
};

// Device memory on the current device, filled with a non-zero pattern.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* data() { return data_; }

 private:
  void* data_ = nullptr;
};

// Times single cudaMemcpyAsync calls on a stream of its own with a pair of events: the
// device's view of the copy, free of host-side launch and synchronisation noise.
class CopyTimer {
 public:
  CopyTimer();
  ~CopyTimer();
  CopyTimer(const CopyTimer&) = delete;
  CopyTimer& operator=(const CopyTimer&) = delete;
  // Seconds the copy took on the device.
  double time_copy(void* destination, const void* source, std::size_t bytes, cudaMemcpyKind kind);

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace gpubench::bench
