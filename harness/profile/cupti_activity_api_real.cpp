#include "harness/profile/cupti_activity_api_real.h"

#include <cuda_runtime_api.h>
#include <cupti.h>
#include <dlfcn.h>
#include <time.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <unordered_map>
#include <utility>
#include <vector>

#include "harness/profile/cupti_activity_decode.h"

namespace gpubench {
namespace {

// CUPTI recommends 1-10 MB buffers; libkineto settled on 4 MB. The cap bounds what a long
// run can hold: past it the request is refused and CUPTI counts the records it drops.
constexpr std::size_t kBufferBytes = std::size_t{4} << 20;
constexpr std::size_t kMaxBuffers = 64;  // 256 MiB

// Buffers are uint64_t arrays: CUPTI needs 8-byte aligned buffers.
using Buffer = std::unique_ptr<std::uint64_t[]>;

// CUPTI's buffer callbacks are plain function pointers without user data, and CUPTI is
// one per process, so its buffers live in one process-wide pool. The callbacks run on
// CUPTI's worker threads; everything here is under `mutex`.
struct BufferPool {
  std::mutex mutex;
  std::unordered_map<std::uint8_t*, Buffer> lent;         // handed to CUPTI
  std::vector<std::pair<Buffer, std::size_t>> completed;  // returned full, with valid bytes
  std::vector<Buffer> spare;                              // decoded, ready for reuse
  std::uint64_t dropped = 0;
};

BufferPool& pool() {
  static BufferPool instance;
  return instance;
}

void CUPTIAPI on_buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  BufferPool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  *max_records = 0;  // as many as fit
  if (p.lent.size() + p.completed.size() >= kMaxBuffers) {
    *buffer = nullptr;  // CUPTI drops records and counts them
    *size = 0;
    return;
  }
  Buffer owned;
  if (!p.spare.empty()) {
    owned = std::move(p.spare.back());
    p.spare.pop_back();
  } else {
    owned.reset(new (std::nothrow) std::uint64_t[kBufferBytes / sizeof(std::uint64_t)]);
  }
  *buffer = reinterpret_cast<std::uint8_t*>(owned.get());
  *size = owned ? kBufferBytes : 0;
  if (owned) p.lent.emplace(*buffer, std::move(owned));
}

void CUPTIAPI on_buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t,
                                  std::size_t valid_bytes) {
  std::size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(context, stream, &dropped);
  BufferPool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.dropped += dropped;
  auto it = p.lent.find(buffer);
  if (it == p.lent.end()) return;  // not ours: nothing to decode or free
  p.completed.emplace_back(std::move(it->second), valid_bytes);
  p.lent.erase(it);
}

std::string result_text(CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) {
    return "CUPTI error " + std::to_string(static_cast<int>(result));
  }
  return text;
}

// Without a driver CUPTI answers CUPTI_ERROR_UNKNOWN, which says nothing; say what is
// missing when the driver library itself cannot be loaded.
std::string driver_hint() {
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (driver == nullptr) driver = dlopen("libcuda.so.1", RTLD_LAZY);
  if (driver != nullptr) {
    dlclose(driver);
    return "";
  }
  const char* why = dlerror();
  return std::string(" (no NVIDIA driver: ") + (why ? why : "libcuda.so.1 cannot be loaded") + ")";
}

CuptiCall check(CUptiResult result, const std::string& call) {
  if (result == CUPTI_SUCCESS) return {};
  CuptiCall failed;
  failed.code = result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? CuptiCall::Code::OtherSubscriber
                                                                         : CuptiCall::Code::Error;
  failed.message = call + ": " + result_text(result);
  if (result == CUPTI_ERROR_UNKNOWN || result == CUPTI_ERROR_NOT_INITIALIZED) failed.message += driver_hint();
  return failed;
}

CUpti_ActivityKind to_cupti(CuptiActivityKind kind) {
  switch (kind) {
    case CuptiActivityKind::ConcurrentKernel: return CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    case CuptiActivityKind::Memcpy: return CUPTI_ACTIVITY_KIND_MEMCPY;
    case CuptiActivityKind::Memset: return CUPTI_ACTIVITY_KIND_MEMSET;
    case CuptiActivityKind::Runtime: return CUPTI_ACTIVITY_KIND_RUNTIME;
    case CuptiActivityKind::Driver: return CUPTI_ACTIVITY_KIND_DRIVER;
  }
  return CUPTI_ACTIVITY_KIND_INVALID;
}

// Subscribing claims the slot only; no callback domain is enabled, so this never runs.
void CUPTIAPI on_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

class RealCuptiActivityApi final : public CuptiActivityApi {
 public:
  ~RealCuptiActivityApi() override {
    if (subscriber_ != nullptr) finalize();
  }

  CuptiCall subscribe() override {
#ifdef CUpti_SubscriberParams_STRUCT_SIZE
    // cuptiSubscribe_v2 names the tool that already holds CUPTI.
    char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
    CUpti_SubscriberParams params{};
    params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    params.subscriberName = "gpubench";
    params.oldSubscriberName = holder;
    params.oldSubscriberSize = sizeof(holder) - 1;
    CuptiCall call = check(cuptiSubscribe_v2(&subscriber_, on_callback, nullptr, &params), "cuptiSubscribe_v2");
    if (call.code == CuptiCall::Code::OtherSubscriber) {
      call.message += std::string(": CUPTI is held by ") + (holder[0] ? holder : "another profiler") +
                      " (e.g. Nsight Systems); gpubench's CUPTI collection is off, NVTX ranges stay on";
    }
#else
    CuptiCall call = check(cuptiSubscribe(&subscriber_, on_callback, nullptr), "cuptiSubscribe");
#endif
    if (!call.ok()) subscriber_ = nullptr;
    return call;
  }

  CuptiCall register_buffer_callbacks() override {
    return check(cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed),
                 "cuptiActivityRegisterCallbacks");
  }

  CuptiCall enable(CuptiActivityKind kind) override {
    return check(cuptiActivityEnable(to_cupti(kind)),
                 std::string("cuptiActivityEnable(") + cupti_activity_kind_name(kind) + ")");
  }

  CuptiCall disable(CuptiActivityKind kind) override {
    return check(cuptiActivityDisable(to_cupti(kind)),
                 std::string("cuptiActivityDisable(") + cupti_activity_kind_name(kind) + ")");
  }

  CuptiCall flush_all() override {
    return check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll(FORCED)");
  }

  CuptiCall synchronize_device() override {
    const cudaError_t error = cudaDeviceSynchronize();
    if (error == cudaSuccess) return {};
    (void)cudaGetLastError();
    CuptiCall failed;
    failed.code = CuptiCall::Code::Error;
    failed.message = std::string("cudaDeviceSynchronize: ") + cudaGetErrorName(error) + ": " + cudaGetErrorString(error);
    return failed;
  }

  CuptiRecords take_records() override {
    std::vector<std::pair<Buffer, std::size_t>> completed;
    CuptiRecords records;
    {
      BufferPool& p = pool();
      std::lock_guard<std::mutex> lock(p.mutex);
      completed.swap(p.completed);
      records.dropped = p.dropped;
      p.dropped = 0;
    }
    // Decoding (demangling, name look-ups) runs on the caller's thread, outside the lock,
    // so CUPTI's worker threads never wait on it.
    for (auto& [buffer, valid] : completed) {
      decoder_.decode_buffer(reinterpret_cast<std::uint8_t*>(buffer.get()), valid, records);
    }
    BufferPool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    for (auto& entry : completed) p.spare.push_back(std::move(entry.first));
    return records;
  }

  CuptiCall finalize() override {
    CuptiCall result;
    if (subscriber_ != nullptr) {
      result = check(cuptiUnsubscribe(subscriber_), "cuptiUnsubscribe");
      subscriber_ = nullptr;
    }
    const CuptiCall detached = check(cuptiFinalize(), "cuptiFinalize");
    BufferPool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    p.spare.clear();
    p.completed.clear();
    p.dropped = 0;
    // Once detached CUPTI writes no more: buffers it still held can go. If detaching
    // failed it may still write into them, so they stay allocated.
    if (detached.ok()) p.lent.clear();
    return result.ok() ? detached : result;
  }

  std::uint64_t timestamp_ns() override {
    std::uint64_t now = 0;
    if (cuptiGetTimestamp(&now) == CUPTI_SUCCESS) return now;
    // CUPTI's documented default clock on Linux x86_64/aarch64.
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
  }

 private:
  CUpti_SubscriberHandle subscriber_ = nullptr;
  CuptiRecordDecoder decoder_;
};

}  // namespace

std::unique_ptr<CuptiActivityApi> make_real_cupti_activity_api() { return std::make_unique<RealCuptiActivityApi>(); }

}  // namespace gpubench
