// Decoding CUPTI's packed records into plain ones, with records built in memory: this
// checks field mapping, copy kinds, pinned detection and demangling without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "harness/profile/cupti_activity_decode.h"

namespace gpubench {
namespace {

const CUpti_Activity& as_activity(const void* record) { return *static_cast<const CUpti_Activity*>(record); }

TEST(CuptiDecode, KernelRecordKeepsTimesIdsAndADemangledName) {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = "_Z10add_kernelPfPKfi";
  k.start = 1'000;
  k.end = 3'500;
  k.deviceId = 1;
  k.streamId = 13;
  k.correlationId = 42;
  CuptiRecordDecoder decoder;
  CuptiRecords out;
  ASSERT_TRUE(decoder.decode(as_activity(&k), out));
  ASSERT_EQ(out.kernels.size(), 1u);
  const KernelRecord& r = out.kernels[0];
  EXPECT_EQ(r.name, "add_kernel(float*, float const*, int)");
  EXPECT_EQ(r.start_ns, 1'000u);
  EXPECT_EQ(r.end_ns, 3'500u);
  EXPECT_EQ(r.device, 1u);
  EXPECT_EQ(r.stream, 13u);
  EXPECT_EQ(r.correlation_id, 42u);

  k.name = "plain_c_kernel";  // not mangled: kept as is
  ASSERT_TRUE(decoder.decode(as_activity(&k), out));
  EXPECT_EQ(out.kernels[1].name, "plain_c_kernel");
}

TEST(CuptiDecode, MemcpyRecordMapsKindBytesAndPinnedHostSide) {
  CUpti_ActivityMemcpy6 m;
  std::memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.bytes = 1 << 20;
  m.start = 10;
  m.end = 20;
  m.correlationId = 7;
  CuptiRecordDecoder decoder;
  CuptiRecords out;
  ASSERT_TRUE(decoder.decode(as_activity(&m), out));
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;  // host side is now dst: pageable
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  ASSERT_TRUE(decoder.decode(as_activity(&m), out));
  ASSERT_EQ(out.memcpys.size(), 2u);
  EXPECT_EQ(out.memcpys[0].kind, MemcpyKind::HostToDevice);
  EXPECT_TRUE(out.memcpys[0].pinned_host);
  EXPECT_EQ(out.memcpys[0].bytes, 1u << 20);
  EXPECT_EQ(out.memcpys[0].correlation_id, 7u);
  EXPECT_EQ(out.memcpys[1].kind, MemcpyKind::DeviceToHost);
  EXPECT_FALSE(out.memcpys[1].pinned_host);
}

TEST(CuptiDecode, CopyKindsFoldArraysIntoTheirDirection) {
  EXPECT_EQ(to_memcpy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_HTOA), MemcpyKind::HostToDevice);
  EXPECT_EQ(to_memcpy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_ATOH), MemcpyKind::DeviceToHost);
  EXPECT_EQ(to_memcpy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_DTOA), MemcpyKind::DeviceToDevice);
  EXPECT_EQ(to_memcpy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP), MemcpyKind::PeerToPeer);
  EXPECT_EQ(to_memcpy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN), MemcpyKind::Unknown);
}

TEST(CuptiDecode, MemsetAndRuntimeRecords) {
  CUpti_ActivityMemset4 s;
  std::memset(&s, 0, sizeof s);
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.bytes = 4096;
  s.start = 5;
  s.end = 6;
  CUpti_ActivityAPI a;
  std::memset(&a, 0, sizeof a);
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  a.start = 1;
  a.end = 2;
  a.threadId = 99;
  a.correlationId = 42;
  CuptiRecordDecoder decoder;
  CuptiRecords out;
  ASSERT_TRUE(decoder.decode(as_activity(&s), out));
  ASSERT_TRUE(decoder.decode(as_activity(&a), out));
  ASSERT_EQ(out.memsets.size(), 1u);
  EXPECT_EQ(out.memsets[0].bytes, 4096u);
  ASSERT_EQ(out.runtime_calls.size(), 1u);
  // cuptiGetCallbackName answers without a driver.
  EXPECT_EQ(out.runtime_calls[0].name, "cudaLaunchKernel_v7000");
  EXPECT_EQ(out.runtime_calls[0].correlation_id, 42u);
  EXPECT_EQ(out.runtime_calls[0].thread_id, 99u);
}

// Driver API calls (cuLaunchKernel: how cuBLAS, cuDNN and NCCL launch) are decoded too,
// named from the driver's callback domain, not the runtime's.
TEST(CuptiDecode, DriverApiRecordsAreDecodedWithTheirOwnNames) {
  CUpti_ActivityAPI a;
  std::memset(&a, 0, sizeof a);
  a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  a.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
  a.start = 3;
  a.end = 4;
  a.threadId = 5;
  a.correlationId = 43;
  CuptiRecordDecoder decoder;
  CuptiRecords out;
  ASSERT_TRUE(decoder.decode(as_activity(&a), out));
  EXPECT_TRUE(out.runtime_calls.empty());
  ASSERT_EQ(out.driver_calls.size(), 1u);
  EXPECT_EQ(out.driver_calls[0].name, "cuLaunchKernel");
  EXPECT_EQ(out.driver_calls[0].correlation_id, 43u);
  EXPECT_EQ(out.size(), 1u);
}

// libcupti walks a buffer by its own idea of each kind's record size: packing the
// toolkit's structs back to back and reading them all back shows the struct versions
// chosen in cupti_activity_decode.cpp match the library (this runs without a driver).
TEST(CuptiDecode, BufferOfPackedRecordsIsWalkedByLibcupti) {
  std::vector<std::uint64_t> storage(1024);  // 8-byte aligned, as CUPTI requires
  auto* bytes = reinterpret_cast<std::uint8_t*>(storage.data());
  std::size_t used = 0;
  const auto put = [&](const auto& record) {
    std::memcpy(bytes + used, &record, sizeof record);
    used += sizeof record;
  };
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = "k";
  k.start = 1;
  k.end = 2;
  CUpti_ActivityMemcpy6 m;
  std::memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.bytes = 64;
  CUpti_ActivityMemset4 s;
  std::memset(&s, 0, sizeof s);
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  CUpti_ActivityAPI a;
  std::memset(&a, 0, sizeof a);
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  put(k);
  put(m);
  put(s);
  put(a);
  put(k);
  CuptiRecordDecoder decoder;
  CuptiRecords out;
  decoder.decode_buffer(bytes, used, out);
  EXPECT_EQ(out.kernels.size(), 2u);
  ASSERT_EQ(out.memcpys.size(), 1u);
  EXPECT_EQ(out.memcpys[0].bytes, 64u);
  EXPECT_EQ(out.memsets.size(), 1u);
  EXPECT_EQ(out.runtime_calls.size(), 1u);
}

TEST(CuptiDecode, OtherKindsAreSkipped) {
  CUpti_Activity other{};
  other.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  CuptiRecordDecoder decoder;
  CuptiRecords out;
  EXPECT_FALSE(decoder.decode(other, out));
  EXPECT_EQ(out.size(), 0u);
  decoder.decode_buffer(nullptr, 0, out);  // an empty completed buffer
  EXPECT_EQ(out.size(), 0u);
}

}  // namespace
}  // namespace gpubench
