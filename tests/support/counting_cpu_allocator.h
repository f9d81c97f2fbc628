#pragma once
// The bytes CPU tensors hold, counted at LibTorch's CPU allocator while a scope lives: every
// allocation goes through the default allocator, wrapped, on every thread (autograd's and
// the intra-op pool's too), so a test can read what a step held at its peak. BLAS and
// oneDNN scratch buffers are not tensors and are not counted.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

namespace gpubench::test_support {

class CountingCpuAllocator final : public c10::Allocator {
 public:
  // Simple data pointers (the context is the data, as the default allocator's), which
  // raw_allocate's callers (oneDNN's scratch buffers) require: the sizes live beside them.
  c10::DataPtr allocate(std::size_t bytes) override {
    c10::DataPtr inner = base_->allocate(bytes);
    void* data = inner.release_context();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      sizes_[data] = bytes;
    }
    const std::int64_t now = current_ += static_cast<std::int64_t>(bytes);
    std::int64_t peak = peak_.load();
    while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
    }
    return {data, data, &release, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &release; }
  void copy_data(void* dest, const void* src, std::size_t count) const override { std::memcpy(dest, src, count); }

  std::int64_t current() const { return current_.load(); }
  std::int64_t peak() const { return peak_.load(); }
  void reset_peak() { peak_.store(current_.load()); }

  // Installs the allocator for CPU tensors while alive; the default one after. Tensors made
  // while it was installed stay counted until they are freed, so it must outlive them: one
  // per process (instance()).
  class Scope {
   public:
    Scope() { c10::SetCPUAllocator(&instance(), /*priority=*/200); }
    ~Scope() { c10::SetCPUAllocator(instance().base_, /*priority=*/200); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
  };
  static CountingCpuAllocator& instance() {
    static auto* allocator = new CountingCpuAllocator;  // never destroyed: freed tensors call back into it
    return *allocator;
  }

 private:
  CountingCpuAllocator() : base_(c10::GetDefaultCPUAllocator()), base_deleter_(base_->raw_deleter()) {}
  static void release(void* data) {
    CountingCpuAllocator& self = instance();
    std::size_t bytes = 0;
    {
      std::lock_guard<std::mutex> lock(self.mutex_);
      const auto found = self.sizes_.find(data);
      if (found != self.sizes_.end()) {
        bytes = found->second;
        self.sizes_.erase(found);
      }
    }
    self.current_ -= static_cast<std::int64_t>(bytes);
    self.base_deleter_(data);
  }
  c10::Allocator* base_;
  c10::DeleterFnPtr base_deleter_;  // the default allocator's pointers are simple: its deleter frees one
  std::mutex mutex_;
  std::unordered_map<void*, std::size_t> sizes_;
  std::atomic<std::int64_t> current_{0}, peak_{0};
};

}  // namespace gpubench::test_support
