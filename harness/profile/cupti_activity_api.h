#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "harness/profile/cupti_records.h"

namespace gpubench {

// The activity kinds gpubench collects. Runtime and driver API records are there for
// correlation: they tie each kernel and copy to the host call that launched it. Both, as
// Kineto collects both: cuBLAS(Lt), cuDNN and NCCL launch their kernels through the driver
// API (cuLaunchKernel), with no runtime call to tie them to.
enum class CuptiActivityKind { ConcurrentKernel, Memcpy, Memset, Runtime, Driver };

inline const char* cupti_activity_kind_name(CuptiActivityKind kind) {
  switch (kind) {
    case CuptiActivityKind::ConcurrentKernel: return "CONCURRENT_KERNEL";
    case CuptiActivityKind::Memcpy: return "MEMCPY";
    case CuptiActivityKind::Memset: return "MEMSET";
    case CuptiActivityKind::Runtime: return "RUNTIME";
    case CuptiActivityKind::Driver: return "DRIVER";
  }
  return "?";
}

// The outcome of one CUPTI call. `message` names the call and carries CUPTI's own
// result string (cuptiGetResultString), so a report can say exactly why CUPTI is off.
struct CuptiCall {
  enum class Code {
    Ok,
    OtherSubscriber,  // CUPTI allows one subscriber; another tool (Nsight Systems, ...) holds it
    Error,
  };
  Code code = Code::Ok;
  std::string message;
  bool ok() const { return code == Code::Ok; }
};

// A thin seam over the process-wide CUPTI Activity API (libkineto's CuptiActivityApi):
// each method is one CUPTI call, so the collector's logic (order, error handling,
// attribution) is tested with a mock that feeds synthetic records, and only the real
// implementation touches CUPTI.
class CuptiActivityApi {
 public:
  virtual ~CuptiActivityApi() = default;
  // cuptiSubscribe: claims CUPTI's single subscriber slot. Fails with OtherSubscriber
  // when a profiler already holds CUPTI, before anything else is touched.
  virtual CuptiCall subscribe() = 0;
  // cuptiActivityRegisterCallbacks: CUPTI asks for empty buffers and hands back full ones.
  virtual CuptiCall register_buffer_callbacks() = 0;
  virtual CuptiCall enable(CuptiActivityKind kind) = 0;   // cuptiActivityEnable
  virtual CuptiCall disable(CuptiActivityKind kind) = 0;  // cuptiActivityDisable
  // cuptiActivityFlushAll(FORCED): every buffer, full or not, goes to the completed queue.
  // It does not synchronise the device: the caller does (the Trainer syncs each phase).
  virtual CuptiCall flush_all() = 0;
  // cudaDeviceSynchronize: every stream of the device, the pinned copy stream included, is
  // idle, so the final flush holds every record (CUPTI leaves syncing to its client).
  virtual CuptiCall synchronize_device() = 0;
  // Decodes the completed buffers (cuptiActivityGetNextRecord) and hands over their records.
  virtual CuptiRecords take_records() = 0;
  // cuptiUnsubscribe + cuptiFinalize: detaches CUPTI from the process. A left-attached
  // CUPTI keeps training 10-20% slower (DESIGN.md), so every collection ends with this.
  virtual CuptiCall finalize() = 0;
  // Now, in nanoseconds on the clock of the records' timestamps (cuptiGetTimestamp).
  virtual std::uint64_t timestamp_ns() = 0;
};

// What the factory found: an API to use, or why there is none.
struct CuptiBackend {
  std::unique_ptr<CuptiActivityApi> api;
  std::string unavailable_reason;  // non-empty exactly when api is null
};

// The real CUPTI API (every build links CUPTI; tests hand the collector a mock or a
// reason instead). A real API can still fail at subscribe/enable time (no driver, no GPU, another
// profiler); the collector turns that into "unavailable" with CUPTI's reason.
CuptiBackend make_cupti_activity_api();

}  // namespace gpubench
