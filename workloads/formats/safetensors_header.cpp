#include "workloads/formats/safetensors_header.h"

#include <algorithm>
#include <limits>

#include "core/config/errors.h"
#include "workloads/formats/excerpt.h"
#include "workloads/formats/strict_json.h"

namespace gpubench {
namespace {

using nlohmann::json;

constexpr std::uint64_t kInt64Max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

// Header, entry, then its shape or data_offsets array: three levels. One more is allowed
// so that an unknown key inside an entry (ignored, as the reference reader ignores it) may
// hold an object or array of scalars.
constexpr std::size_t kMaxDepth = 4;
// A header's arrays are shapes (64 dimensions at most, said by EntryReader with the tensor's
// name) and data_offsets (2): one far longer is refused before its DOM is built.
constexpr std::size_t kMaxArrayItems = 4096;

class EntryReader {
 public:
  EntryReader(const std::string& what, std::uint64_t data_bytes, const std::string& name)
      : what_(what), data_bytes_(data_bytes), name_(name) {}

  SafetensorsEntry read(const json& value) const {
    if (!value.is_object()) throw fail("is " + json_excerpt(value) + ": expected an object with dtype, shape, data_offsets");
    SafetensorsEntry entry;
    entry.name = name_;
    entry.dtype = dtype(value);
    entry.shape = shape(value);
    read_offsets(value, entry);
    check_size(entry);
    return entry;
  }

 private:
  UsageError fail(const std::string& why) const { return UsageError(what_ + ": tensor " + excerpt(name_) + " " + why); }

  const json& member(const json& value, const char* key) const {
    const auto it = value.find(key);
    if (it == value.end()) throw fail(std::string("has no \"") + key + "\": expected dtype, shape and data_offsets");
    return *it;
  }

  std::string dtype(const json& value) const {
    const json& dtype = member(value, "dtype");
    if (!dtype.is_string()) throw fail("has dtype " + json_excerpt(dtype) + ": expected a string such as \"F32\"");
    const auto& text = dtype.get_ref<const std::string&>();
    if (safetensors_element_size(text) == 0)
      throw fail("has dtype " + excerpt(text, 40) +
                 ": expected a byte-sized safetensors dtype (BOOL, U8, I8, F8_*, U16, I16, F16, BF16, U32, I32, "
                 "F32, U64, I64, F64, C64; gpubench reads F32, BF16 and F16 as weights)");
    return text;
  }

  std::vector<std::int64_t> shape(const json& value) const {
    const json& shape = member(value, "shape");
    if (!shape.is_array()) throw fail("has shape " + json_excerpt(shape) + ": expected an array of dimensions");
    if (shape.size() > kSafetensorsMaxRank)
      throw fail("has " + std::to_string(shape.size()) + " dimensions: expected at most " +
                 std::to_string(kSafetensorsMaxRank));
    std::vector<std::int64_t> dims;
    for (const json& dim : shape) {
      const auto count = json_count(dim);
      if (!count || *count > kInt64Max)
        throw fail("has shape " + json_excerpt(shape) + ": expected every dimension an integer >= 0");
      dims.push_back(static_cast<std::int64_t>(*count));
    }
    return dims;
  }

  void read_offsets(const json& value, SafetensorsEntry& entry) const {
    const json& offsets = member(value, "data_offsets");
    const auto offset = [&](std::size_t i) {
      const auto count = offsets.is_array() && offsets.size() == 2 ? json_count(offsets[i]) : std::nullopt;
      if (!count) throw fail("has data_offsets " + json_excerpt(offsets) + ": expected [begin, end], integers >= 0");
      return *count;
    };
    entry.begin = offset(0);
    entry.end = offset(1);
    if (entry.begin > entry.end)
      throw fail("has data_offsets [" + std::to_string(entry.begin) + ", " + std::to_string(entry.end) +
                 "]: expected begin <= end");
    if (entry.end > data_bytes_)
      throw fail("ends at byte " + std::to_string(entry.end) + " of the data section: expected at most " +
                 std::to_string(data_bytes_) + " (the file's data section is that long)");
  }

  // Element count and byte size, overflow-checked: the product of the dims (a 0 counts as
  // 1 here, so a zero-element tensor's other dims stay within what torch can index) times
  // the element size must fit in int64 before it is compared with the range.
  void check_size(const SafetensorsEntry& entry) const {
    std::uint64_t span = 1;
    bool empty = false;
    for (const std::int64_t dim : entry.shape) {
      empty = empty || dim == 0;
      const auto factor = static_cast<std::uint64_t>(std::max<std::int64_t>(dim, 1));
      if (__builtin_mul_overflow(span, factor, &span) || span > kInt64Max)
        throw fail("has shape " + shape_text(entry.shape) + ", whose element count overflows 64 bits");
    }
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(empty ? 0 : span, safetensors_element_size(entry.dtype), &bytes) || bytes > kInt64Max)
      throw fail("has shape " + shape_text(entry.shape) + ", whose size in bytes overflows 64 bits");
    if (bytes != entry.end - entry.begin)
      throw fail("has shape " + shape_text(entry.shape) + " of " + entry.dtype + " (" + std::to_string(bytes) +
                 " bytes) but data_offsets [" + std::to_string(entry.begin) + ", " + std::to_string(entry.end) +
                 "] hold " + std::to_string(entry.end - entry.begin) + ": expected the two to agree");
  }

  const std::string& what_;
  std::uint64_t data_bytes_;
  const std::string& name_;
};

std::map<std::string, std::string> read_metadata(const json& value, const std::string& what) {
  std::map<std::string, std::string> metadata;
  if (value.is_null()) return metadata;  // the reference reader takes null as no metadata
  if (!value.is_object())
    throw UsageError(what + ": __metadata__ is " + json_excerpt(value) + ": expected an object of strings");
  for (const auto& [key, text] : value.items()) {
    if (!text.is_string())
      throw UsageError(what + ": __metadata__ " + excerpt(key) + " is " + json_excerpt(text) + ": expected a string");
    metadata.emplace(key, text.get<std::string>());
  }
  return metadata;
}

// The ranges, in file order, must tile [0, data_bytes): each starts where the last ended.
void check_tiling(const std::vector<SafetensorsEntry>& entries, std::uint64_t data_bytes, const std::string& what) {
  std::vector<const SafetensorsEntry*> order;
  for (const auto& entry : entries) order.push_back(&entry);
  std::sort(order.begin(), order.end(), [](const SafetensorsEntry* a, const SafetensorsEntry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  std::uint64_t covered = 0;
  const SafetensorsEntry* previous = nullptr;
  for (const SafetensorsEntry* entry : order) {
    const std::string range = "[" + std::to_string(entry->begin) + ", " + std::to_string(entry->end) + ")";
    if (entry->begin < covered)
      throw UsageError(what + ": tensor " + excerpt(entry->name) + " at bytes " + range + " overlaps tensor " +
                       excerpt(previous->name) + ", which ends at " + std::to_string(covered) +
                       ": expected tensors that do not share bytes");
    if (entry->begin > covered)
      throw UsageError(what + ": data bytes [" + std::to_string(covered) + ", " + std::to_string(entry->begin) +
                       ") belong to no tensor (a hole before " + excerpt(entry->name) +
                       "): expected the tensors to cover the data section exactly");
    covered = entry->end;
    previous = entry;
  }
  if (covered != data_bytes)
    throw UsageError(what + ": data bytes [" + std::to_string(covered) + ", " + std::to_string(data_bytes) +
                     ") at the end belong to no tensor: expected the tensors to cover the data section exactly");
}

}  // namespace

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

std::int64_t SafetensorsEntry::numel() const {
  std::int64_t count = 1;
  for (const std::int64_t dim : shape) count *= dim;  // checked when the header was read
  return count;
}

std::size_t safetensors_element_size(const std::string& dtype) {
  static const std::map<std::string, std::size_t> sizes = {
      {"BOOL", 1},        {"U8", 1},          {"I8", 1},      {"F8_E4M3", 1}, {"F8_E5M2", 1},
      {"F8_E4M3FNUZ", 1}, {"F8_E5M2FNUZ", 1}, {"F8_E8M0", 1}, {"U16", 2},     {"I16", 2},
      {"F16", 2},         {"BF16", 2},        {"U32", 4},     {"I32", 4},     {"F32", 4},
      {"U64", 8},         {"I64", 8},         {"F64", 8},     {"C64", 8}};
  const auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

SafetensorsHeader parse_safetensors_header(std::string_view json_text, std::uint64_t data_bytes, const std::string& what) {
  const json root = parse_strict_json(json_text, kMaxDepth, what + ": header", kMaxArrayItems);
  if (!root.is_object())
    throw UsageError(what + ": header is " + json_excerpt(root) + ": expected a JSON object of tensors");
  SafetensorsHeader header;
  for (const auto& [name, value] : root.items()) {
    if (name == "__metadata__")
      header.metadata = read_metadata(value, what);
    else
      header.entries.push_back(EntryReader(what, data_bytes, name).read(value));  // nlohmann's objects iterate sorted by key
  }
  check_tiling(header.entries, data_bytes, what);
  return header;
}

}  // namespace gpubench
