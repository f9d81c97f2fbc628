#pragma once
// Small .safetensors files written byte by byte in the tests, valid or broken on purpose.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

namespace gpubench::test_support {

using Bytes = std::vector<std::uint8_t>;

struct StoredTensor {
  std::string name;
  std::string dtype;
  std::vector<std::int64_t> shape;
  Bytes bytes;
};

// The bytes of `values` stored as dtype (F32, BF16, F16, I64, U8), little-endian.
inline Bytes tensor_bytes(const std::vector<double>& values, torch::ScalarType type) {
  const torch::Tensor t = torch::tensor(values, torch::kFloat64).to(type).contiguous();
  const auto* begin = static_cast<const std::uint8_t*>(t.data_ptr());
  return Bytes(begin, begin + t.numel() * t.element_size());
}

// 8-byte little-endian length, the header text, the data.
inline Bytes file_bytes(const std::string& header, const Bytes& data, std::uint64_t header_length) {
  // Sized once and filled by index: GCC 12's -Warray-bounds misreads a vector grown by
  // insert() from 8 bytes (a false positive that -Werror would turn into a failed build).
  Bytes bytes(8 + header.size() + data.size());
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<std::uint8_t>(header_length >> (8 * i));
  std::copy(header.begin(), header.end(), bytes.begin() + 8);
  std::copy(data.begin(), data.end(), bytes.begin() + 8 + static_cast<std::ptrdiff_t>(header.size()));
  return bytes;
}
inline Bytes file_bytes(const std::string& header, const Bytes& data) { return file_bytes(header, data, header.size()); }

// A valid file: the tensors back to back in the given order, offsets computed.
inline nlohmann::json header_of(const std::vector<StoredTensor>& tensors, const nlohmann::json& metadata = nullptr) {
  nlohmann::json header = nlohmann::json::object();
  std::uint64_t offset = 0;
  for (const auto& t : tensors) {
    header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  if (!metadata.is_null()) header["__metadata__"] = metadata;
  return header;
}
inline Bytes data_of(const std::vector<StoredTensor>& tensors) {
  Bytes data;
  for (const auto& t : tensors) data.insert(data.end(), t.bytes.begin(), t.bytes.end());
  return data;
}
inline Bytes safetensors_bytes(const std::vector<StoredTensor>& tensors, const nlohmann::json& metadata = nullptr) {
  return file_bytes(header_of(tensors, metadata).dump(), data_of(tensors));
}

inline void write_bytes(const std::string& path, const Bytes& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}
inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// A small valid file with each weight dtype, a 3-byte U8 first so that the rest sit at
// unaligned offsets, an empty tensor and a scalar.
inline std::vector<StoredTensor> mixed_tensors() {
  return {
      {"a.u8", "U8", {3}, tensor_bytes({1, 2, 255}, torch::kUInt8)},
      {"b.f32", "F32", {2, 3}, tensor_bytes({0.5, -1.25, 3, 4, 5.5, -6}, torch::kFloat32)},
      {"c.bf16", "BF16", {4}, tensor_bytes({1.5, -2, 0.25, 384}, torch::kBFloat16)},
      {"d.f16", "F16", {2, 1}, tensor_bytes({-0.75, 1024}, torch::kFloat16)},
      {"e.empty", "F32", {0, 5}, {}},
      {"f.scalar", "F32", {}, tensor_bytes({7}, torch::kFloat32)},
      {"g.i64", "I64", {2}, tensor_bytes({-3, 5000000000.0}, torch::kInt64)},
  };
}

}  // namespace gpubench::test_support
