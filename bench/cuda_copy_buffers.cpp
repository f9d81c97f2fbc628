#include "bench/cuda_copy_buffers.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace gpubench::bench {

namespace {
constexpr int kFillByte = 0x5a;  // non-zero: a zero page could be special-cased somewhere
}

void cuda_check(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clear a sticky error so the next benchmark starts clean
  throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(status));
}

HostBuffer::HostBuffer(std::size_t bytes, HostMemory kind) : kind_(kind) {
  if (kind_ == HostMemory::Pinned) {
    cuda_check(cudaMallocHost(&data_, bytes), "cudaMallocHost");
  } else {
    pageable_.reset(new unsigned char[bytes]);  // uninitialised: memset below touches every page
    data_ = pageable_.get();
  }
  std::memset(data_, kFillByte, bytes);
}

HostBuffer::~HostBuffer() {
  if (kind_ == HostMemory::Pinned && data_) cudaFreeHost(data_);
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) {
  cuda_check(cudaMalloc(&data_, bytes), "cudaMalloc");
  cuda_check(cudaMemset(data_, kFillByte, bytes), "cudaMemset");
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

DeviceBuffer::~DeviceBuffer() {
  if (data_) cudaFree(data_);
}

CopyTimer::CopyTimer() {
  cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  cuda_check(cudaEventCreate(&start_), "cudaEventCreate");
  cuda_check(cudaEventCreate(&stop_), "cudaEventCreate");
}

CopyTimer::~CopyTimer() {
  if (stop_) cudaEventDestroy(stop_);
  if (start_) cudaEventDestroy(start_);
  if (stream_) cudaStreamDestroy(stream_);
}

double CopyTimer::time_copy(void* destination, const void* source, std::size_t bytes, cudaMemcpyKind kind) {
  cuda_check(cudaEventRecord(start_, stream_), "cudaEventRecord");
  cuda_check(cudaMemcpyAsync(destination, source, bytes, kind, stream_), "cudaMemcpyAsync");
  cuda_check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
  cuda_check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
  float milliseconds = 0;
  cuda_check(cudaEventElapsedTime(&milliseconds, start_, stop_), "cudaEventElapsedTime");
  return static_cast<double>(milliseconds) / 1e3;
}

}  // namespace gpubench::bench
