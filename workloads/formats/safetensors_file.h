#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <torch/types.h>

#include "core/io/mapped_file.h"
#include "workloads/formats/safetensors_header.h"

namespace gpubench {

// One .safetensors file (huggingface/safetensors): an 8-byte little-endian header length
// N, N bytes of JSON header, then the tensors' bytes. The file is memory-mapped and
// untrusted: the constructor checks everything a read could trip on (safetensors_header.h)
// and throws UsageError "safetensors file 'PATH': problem"; afterwards every tensor() of a
// listed name stays inside the file as it was opened. Tensors are read out (pread, not the
// mapping: a file truncated since, whose mapped pages past its new end would SIGBUS, is a
// std::runtime_error "safetensors file 'PATH' shrank during the run"), so they outlive
// this object.
class SafetensorsFile {
 public:
  // The reference implementation's limit on N (safetensors' MAX_HEADER_SIZE, 100 MB).
  static constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

  explicit SafetensorsFile(const std::string& path);

  const std::string& path() const { return file_->path(); }
  const std::vector<SafetensorsEntry>& entries() const { return header_.entries; }  // sorted by name
  const std::map<std::string, std::string>& metadata() const { return header_.metadata; }

  // The named entry, or nullptr.
  const SafetensorsEntry* find(const std::string& name) const;
  // The named entry; UsageError naming the file and the tensor when there is none.
  const SafetensorsEntry& entry(const std::string& name) const;
  // The dtype as stored ("F32", "BF16", ...).
  const std::string& dtype(const std::string& name) const { return entry(name).dtype; }

  // A weight: an fp32 CPU tensor of the entry's shape, converted from F32, BF16 or F16.
  // UsageError for another dtype, naming it.
  torch::Tensor tensor(const std::string& name) const;
  // The entry in its stored dtype, for the dtypes LibTorch has (F64, F32, F16, BF16, I64,
  // I32, I16, I8, U8; e.g. a reference file's int64 input_ids). UsageError for the rest.
  torch::Tensor stored_tensor(const std::string& name) const;
  // `count` bytes of the entry's data from `offset` within it (inside it: checked), as
  // stored: for comparing two tensors without holding either whole.
  void stored_bytes(const SafetensorsEntry& entry, std::uint64_t offset, std::size_t count, void* to) const;

 private:
  std::unique_ptr<MappedFile> file_;  // a pointer: MappedFile does not move, this class does
  std::uint64_t data_start_ = 0;      // 8 + N
  SafetensorsHeader header_;
};

}  // namespace gpubench
