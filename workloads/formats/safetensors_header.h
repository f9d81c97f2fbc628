#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench {

// One tensor of a .safetensors file as its header describes it, checked.
struct SafetensorsEntry {
  std::string name;
  std::string dtype;                // as the file spells it: "F32", "BF16", "F16", "I64", ...
  std::vector<std::int64_t> shape;  // every dim >= 0; the element count fits in int64
  std::uint64_t begin = 0;          // byte range [begin, end) within the data section
  std::uint64_t end = 0;
  std::int64_t numel() const;
};

struct SafetensorsHeader {
  std::vector<SafetensorsEntry> entries;       // sorted by name
  std::map<std::string, std::string> metadata;  // "__metadata__", e.g. {"format": "pt"}
};

// Bytes per element of a byte-sized dtype the safetensors format defines (BOOL, U8, I8,
// F8_E4M3, F8_E5M2, F8_E4M3FNUZ, F8_E5M2FNUZ, F8_E8M0, U16, I16, F16, BF16, U32, I32, F32,
// U64, I64, F64, C64), 0 for any other name. The sub-byte types of newer releases (F4,
// F6_*) are not known here: a file holding one is refused as a whole.
std::size_t safetensors_element_size(const std::string& dtype);

// A tensor shape as messages print it: "[2048, 128256]".
std::string shape_text(const std::vector<std::int64_t>& shape);

// The most dimensions a tensor may have here. The format sets no limit, but no model has
// more than a handful; a 100 MB header of 1s would otherwise be a 50-million-dim shape.
constexpr std::size_t kSafetensorsMaxRank = 64;

// Parses the JSON header of a .safetensors file and checks it against the size of the
// data section that follows it: {name: {"dtype", "shape", "data_offsets": [begin, end]},
// "__metadata__": {str: str}}. Every tensor's byte range must match its shape and dtype,
// lie inside the data section, and the ranges must tile the section exactly (no overlap,
// no hole, nothing left over), as the format requires. Throws UsageError "WHAT: problem".
SafetensorsHeader parse_safetensors_header(std::string_view json_text, std::uint64_t data_bytes, const std::string& what);

}  // namespace gpubench
