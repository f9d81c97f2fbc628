#include "harness/profile/cupti_activity_decode.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace gpubench {
namespace {

// The record layouts this CUDA 13 toolkit's cupti_activity.h names for the kinds gpubench
// enables. libcupti writes its own version's layout, so the library at run time must be
// the headers' major version (13); newer record versions only append fields, and only the
// leading common fields (times, ids, name) are read here.
using KernelActivity = CUpti_ActivityKernel10;  // CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
using MemcpyActivity = CUpti_ActivityMemcpy6;   // CUPTI_ACTIVITY_KIND_MEMCPY
using MemsetActivity = CUpti_ActivityMemset4;   // CUPTI_ACTIVITY_KIND_MEMSET
using ApiActivity = CUpti_ActivityAPI;          // CUPTI_ACTIVITY_KIND_RUNTIME and _DRIVER

std::string demangle(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(mangled, nullptr, nullptr, &status), &std::free);
  // Plain C kernel names are not mangled: keep them as they are.
  return status == 0 && text ? std::string(text.get()) : std::string(mangled);
}

}  // namespace

MemcpyKind to_memcpy_kind(std::uint8_t cupti_copy_kind) {
  switch (cupti_copy_kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return MemcpyKind::HostToDevice;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return MemcpyKind::DeviceToHost;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return MemcpyKind::DeviceToDevice;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return MemcpyKind::HostToHost;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return MemcpyKind::PeerToPeer;
    default: return MemcpyKind::Unknown;
  }
}

void CuptiRecordDecoder::decode_buffer(std::uint8_t* buffer, std::size_t valid_bytes, CuptiRecords& out) {
  if (buffer == nullptr || valid_bytes == 0) return;
  CUpti_Activity* record = nullptr;
  // MAX_LIMIT_REACHED ends a buffer; INVALID_KIND marks an incomplete record, after which
  // CUPTI cannot find the next one either: both end the walk.
  while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) decode(*record, out);
}

bool CuptiRecordDecoder::decode(const CUpti_Activity& record, CuptiRecords& out) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto& k = reinterpret_cast<const KernelActivity&>(record);
      out.kernels.push_back({k.name ? kernel_name(k.name) : std::string("<unnamed kernel>"), k.start, k.end, k.deviceId,
                             k.streamId, k.correlationId});
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto& m = reinterpret_cast<const MemcpyActivity&>(record);
      const MemcpyKind kind = to_memcpy_kind(m.copyKind);
      const std::uint8_t host_side = kind == MemcpyKind::DeviceToHost ? m.dstKind : m.srcKind;
      out.memcpys.push_back({kind, m.bytes, m.start, m.end, m.deviceId, m.streamId, m.correlationId,
                             host_side == CUPTI_ACTIVITY_MEMORY_KIND_PINNED});
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto& m = reinterpret_cast<const MemsetActivity&>(record);
      out.memsets.push_back({m.bytes, m.start, m.end, m.deviceId, m.streamId, m.correlationId});
      return true;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME: {
      const auto& a = reinterpret_cast<const ApiActivity&>(record);
      out.runtime_calls.push_back(
          {a.cbid, api_name(CUPTI_CB_DOMAIN_RUNTIME_API, a.cbid), a.start, a.end, a.threadId, a.correlationId});
      return true;
    }
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto& a = reinterpret_cast<const ApiActivity&>(record);
      out.driver_calls.push_back(
          {a.cbid, api_name(CUPTI_CB_DOMAIN_DRIVER_API, a.cbid), a.start, a.end, a.threadId, a.correlationId});
      return true;
    }
    default: return false;
  }
}

const std::string& CuptiRecordDecoder::kernel_name(const char* mangled) {
  auto it = kernel_names_.find(mangled);
  if (it == kernel_names_.end()) it = kernel_names_.emplace(mangled, demangle(mangled)).first;
  return it->second;
}

const std::string& CuptiRecordDecoder::api_name(CUpti_CallbackDomain domain, std::uint32_t cbid) {
  const std::uint64_t key = (static_cast<std::uint64_t>(domain) << 32) | cbid;
  auto it = api_names_.find(key);
  if (it == api_names_.end()) {
    const char* name = nullptr;
    const bool known = cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name;
    it = api_names_.emplace(key, known ? std::string(name) : "cbid " + std::to_string(cbid)).first;
  }
  return it->second;
}

}  // namespace gpubench
