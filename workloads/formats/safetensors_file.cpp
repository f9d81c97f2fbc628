#include "workloads/formats/safetensors_file.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "core/config/errors.h"
#include "workloads/formats/excerpt.h"

namespace gpubench {
namespace {

// The format is little-endian; tensors are read byte for byte into host tensors.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors data is little-endian: a big-endian host needs byte swaps");

std::uint64_t little_endian_u64(const std::uint8_t* bytes) {
  std::uint64_t value = 0;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

std::optional<torch::ScalarType> torch_type(const std::string& dtype) {
  static const std::map<std::string, torch::ScalarType> types = {
      {"F64", torch::kFloat64}, {"F32", torch::kFloat32}, {"F16", torch::kFloat16}, {"BF16", torch::kBFloat16},
      {"I64", torch::kInt64},   {"I32", torch::kInt32},   {"I16", torch::kInt16},   {"I8", torch::kInt8},
      {"U8", torch::kUInt8}};
  const auto it = types.find(dtype);
  if (it == types.end()) return std::nullopt;
  return it->second;
}

}  // namespace

SafetensorsFile::SafetensorsFile(const std::string& path)
    : file_(std::make_unique<MappedFile>(path, "safetensors file")) {
  const std::string what = "safetensors file '" + path + "'";
  const std::uint64_t size = file_->size();
  if (size < 8)
    throw UsageError(what + ": is " + std::to_string(size) + " bytes: expected at least 8 (the header length)");
  const std::uint64_t header_bytes = little_endian_u64(file_->data());
  if (header_bytes > kMaxHeaderBytes)
    throw UsageError(what + ": header length is " + std::to_string(header_bytes) + " bytes: expected at most " +
                     std::to_string(kMaxHeaderBytes) + " (the safetensors limit)");
  if (header_bytes > size - 8)
    throw UsageError(what + ": header length is " + std::to_string(header_bytes) + " bytes but only " +
                     std::to_string(size - 8) + " follow the length: expected a header inside the file");
  data_start_ = 8 + header_bytes;
  const std::string_view text(reinterpret_cast<const char*>(file_->data() + 8), header_bytes);
  header_ = parse_safetensors_header(text, size - data_start_, what);
}

const SafetensorsEntry* SafetensorsFile::find(const std::string& name) const {
  const auto& entries = header_.entries;
  const auto it = std::lower_bound(entries.begin(), entries.end(), name,
                                   [](const SafetensorsEntry& entry, const std::string& key) { return entry.name < key; });
  return it != entries.end() && it->name == name ? &*it : nullptr;
}

const SafetensorsEntry& SafetensorsFile::entry(const std::string& name) const {
  if (const SafetensorsEntry* found = find(name)) return *found;
  throw UsageError("safetensors file '" + path() + "' has no tensor " + excerpt(name) + " (it holds " +
                   std::to_string(header_.entries.size()) + ")");
}

torch::Tensor SafetensorsFile::stored_tensor(const std::string& name) const {
  const SafetensorsEntry& found = entry(name);
  const auto type = torch_type(found.dtype);
  if (!type)
    throw UsageError("safetensors file '" + path() + "': tensor " + excerpt(name) + " has dtype " + found.dtype +
                     ": expected F64, F32, F16, BF16, I64, I32, I16, I8 or U8");
  torch::Tensor tensor = torch::empty(found.shape, torch::TensorOptions().dtype(*type));
  const std::uint64_t bytes = found.end - found.begin;  // == numel * element size, checked by the header
  // Read, not copied from the mapping: a file cut since it was opened is an error naming
  // it, not a SIGBUS.
  if (bytes > 0) file_->copy_out(data_start_ + found.begin, bytes, tensor.data_ptr());
  return tensor;
}

void SafetensorsFile::stored_bytes(const SafetensorsEntry& entry, std::uint64_t offset, std::size_t count, void* to) const {
  if (offset > entry.end - entry.begin || count > entry.end - entry.begin - offset)
    throw std::out_of_range("safetensors file '" + path() + "': bytes past the end of tensor " + excerpt(entry.name));
  file_->copy_out(data_start_ + entry.begin + offset, count, to);
}

torch::Tensor SafetensorsFile::tensor(const std::string& name) const {
  const std::string& dtype = entry(name).dtype;
  if (dtype != "F32" && dtype != "BF16" && dtype != "F16")
    throw UsageError("safetensors file '" + path() + "': tensor " + excerpt(name) + " has dtype " + dtype +
                     ": expected F32, BF16 or F16 for a weight");
  return stored_tensor(name).to(torch::kFloat32);
}

}  // namespace gpubench
