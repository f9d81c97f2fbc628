#pragma once
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

namespace gpubench {

// Decoded CUPTI activity records: plain data, no CUPTI types, so the summary, the tests
// and a trace writer use them on machines without CUPTI. All timestamps are nanoseconds
// on CUPTI's clock (see CuptiActivityApi::timestamp_ns); start == end == 0 means CUPTI
// could not time the activity (it says so for lack of device memory).

struct KernelRecord {
  std::string name;  // demangled where the demangler understood it
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t device = 0, stream = 0;
  std::uint32_t correlation_id = 0;  // equals the launching ApiCallRecord's
};

// CUPTI's copy directions folded to the ones a training step cares about; array variants
// (HtoA, AtoH, ...) count with their linear counterparts.
enum class MemcpyKind { Unknown, HostToDevice, DeviceToHost, DeviceToDevice, HostToHost, PeerToPeer };

inline const char* memcpy_kind_name(MemcpyKind kind) {
  switch (kind) {
    case MemcpyKind::HostToDevice: return "h2d";
    case MemcpyKind::DeviceToHost: return "d2h";
    case MemcpyKind::DeviceToDevice: return "d2d";
    case MemcpyKind::HostToHost: return "h2h";
    case MemcpyKind::PeerToPeer: return "p2p";
    case MemcpyKind::Unknown: break;
  }
  return "unknown";
}

struct MemcpyRecord {
  MemcpyKind kind = MemcpyKind::Unknown;
  std::uint64_t bytes = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t device = 0, stream = 0;
  // CUPTI's correlationId, as for kernels (libkineto links copies to their runtime
  // call through this field too).
  std::uint32_t correlation_id = 0;
  bool pinned_host = false;  // the host side was page-locked (pinned vs pageable)
};

struct MemsetRecord {
  std::uint64_t bytes = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t device = 0, stream = 0;
  std::uint32_t correlation_id = 0;
};

// A CUDA runtime or driver API call on a host thread: gives kernels and copies their
// launch site.
struct ApiCallRecord {
  std::uint32_t cbid = 0;  // CUpti_runtime_api_trace_cbid or CUpti_driver_api_trace_cbid
  std::string name;        // e.g. "cudaLaunchKernel_v7000", "cuLaunchKernel"
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t thread_id = 0;
  std::uint32_t correlation_id = 0;
};

struct CuptiRecords {
  std::vector<KernelRecord> kernels;
  std::vector<MemcpyRecord> memcpys;
  std::vector<MemsetRecord> memsets;
  std::vector<ApiCallRecord> runtime_calls;
  std::vector<ApiCallRecord> driver_calls;  // cuBLAS, cuDNN and NCCL launch through these
  std::uint64_t dropped = 0;  // records CUPTI reported lost (buffers full or refused)

  std::size_t size() const {
    return kernels.size() + memcpys.size() + memsets.size() + runtime_calls.size() + driver_calls.size();
  }
  void append(CuptiRecords&& more) {
    move_into(kernels, more.kernels);
    move_into(memcpys, more.memcpys);
    move_into(memsets, more.memsets);
    move_into(runtime_calls, more.runtime_calls);
    move_into(driver_calls, more.driver_calls);
    dropped += more.dropped;
    more.clear();
  }
  void clear() { *this = CuptiRecords{}; }

 private:
  template <class T>
  static void move_into(std::vector<T>& to, std::vector<T>& from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  }
};

inline bool has_timing(std::uint64_t start_ns, std::uint64_t end_ns) { return !(start_ns == 0 && end_ns == 0); }

}  // namespace gpubench
