#pragma once
// Turns CUPTI's packed activity records into the plain records of cupti_records.h.
#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "harness/profile/cupti_records.h"

namespace gpubench {

class CuptiRecordDecoder {
 public:
  // Appends every record of one completed buffer to `out`. Kinds other than the five
  // gpubench enables are skipped. Stops at CUPTI's first invalid (incomplete) record.
  void decode_buffer(std::uint8_t* buffer, std::size_t valid_bytes, CuptiRecords& out);

  // One record; false when its kind is not one gpubench decodes.
  bool decode(const CUpti_Activity& record, CuptiRecords& out);

 private:
  const std::string& kernel_name(const char* mangled);
  const std::string& api_name(CUpti_CallbackDomain domain, std::uint32_t cbid);

  // A training step launches the same few hundred kernels every step: demangle (and ask
  // CUPTI for API names) once per distinct name, not once per record.
  std::unordered_map<std::string, std::string> kernel_names_;
  std::unordered_map<std::uint64_t, std::string> api_names_;  // by domain and cbid
};

// CUPTI's copy kind (CUpti_ActivityMemcpyKind) folded to MemcpyKind.
MemcpyKind to_memcpy_kind(std::uint8_t cupti_copy_kind);

}  // namespace gpubench
