#include "workloads/formats/zip_directory.h"

#include <algorithm>
#include <optional>

#include "core/config/errors.h"
#include "workloads/formats/excerpt.h"

namespace gpubench {
namespace {

constexpr std::uint32_t kEndSignature = 0x06054b50;        // end of central directory record
constexpr std::uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr std::uint32_t kZip64EndSignature = 0x06064b50;
constexpr std::uint32_t kEntrySignature = 0x02014b50;      // central directory file header
constexpr std::uint64_t kEndBytes = 22, kZip64LocatorBytes = 20, kZip64EndBytes = 56, kEntryBytes = 46;
constexpr std::uint64_t kMaxComment = 0xFFFF;

// Little-endian fields, read only where the caller has checked the bytes are inside.
std::uint64_t field(const std::uint8_t* at, int bytes) {
  std::uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | at[i];
  return value;
}

struct Directory {
  std::uint64_t entries = 0, offset = 0, bytes = 0;
};

// The end record: the last signature from which its comment runs exactly to the file's end.
std::optional<std::uint64_t> end_record(const std::uint8_t* bytes, std::uint64_t size) {
  if (size < kEndBytes) return std::nullopt;
  const std::uint64_t lowest = size - kEndBytes > kMaxComment ? size - kEndBytes - kMaxComment : 0;
  for (std::uint64_t at = size - kEndBytes + 1; at-- > lowest;)
    if (field(bytes + at, 4) == kEndSignature && at + kEndBytes + field(bytes + at + 20, 2) == size) return at;
  return std::nullopt;
}

Directory directory_of(const std::uint8_t* bytes, std::uint64_t size, const std::string& what) {
  const auto end = end_record(bytes, size);
  if (!end)
    throw UsageError(what + ": no zip end-of-directory record (a file cut short, or not a zip archive): expected a "
                            "whole archive as torch.jit.save writes it");
  const std::uint8_t* record = bytes + *end;
  Directory d{field(record + 10, 2), field(record + 16, 4), field(record + 12, 4)};
  const bool saturated = d.entries == 0xFFFF || d.offset == 0xFFFFFFFF || d.bytes == 0xFFFFFFFF;
  // A ZIP64 locator before the end record (torch.jit.save always writes one) gives the
  // directory, whatever the 32-bit fields say: LibTorch's reader (miniz) reads it so.
  const std::uint8_t* locator = *end >= kZip64LocatorBytes ? record - kZip64LocatorBytes : nullptr;
  if (locator != nullptr && field(locator, 4) == kZip64LocatorSignature) {
    const std::uint64_t at = field(locator + 8, 8);
    if (at > *end - kZip64LocatorBytes || *end - kZip64LocatorBytes - at < kZip64EndBytes ||
        field(bytes + at, 4) != kZip64EndSignature)
      throw UsageError(what + ": its ZIP64 end record is outside the file or mis-signed: expected a whole archive");
    d = {field(bytes + at + 32, 8), field(bytes + at + 48, 8), field(bytes + at + 40, 8)};
  } else if (saturated) {
    throw UsageError(what + ": its zip end record asks for a ZIP64 record that is not there: expected a whole archive");
  }
  if (d.offset > *end || d.bytes > *end - d.offset)
    throw UsageError(what + ": its zip directory (" + std::to_string(d.bytes) + " bytes at " + std::to_string(d.offset) +
                     ") lies outside the file's " + std::to_string(size) + " bytes: expected a whole archive");
  if (d.entries > d.bytes / kEntryBytes)
    throw UsageError(what + ": its zip directory declares " + std::to_string(d.entries) + " entries in " +
                     std::to_string(d.bytes) + " bytes: expected at least 46 bytes an entry");
  return d;
}

// The ZIP64 extra field (tag 1) holds, in this order, each of the three sizes and offsets
// whose 32-bit field is saturated.
void read_zip64_sizes(const std::uint8_t* extra, std::uint64_t extra_bytes, ZipEntry& entry, bool uncompressed_wide,
                      bool compressed_wide, const std::string& what) {
  for (std::uint64_t at = 0; at + 4 <= extra_bytes;) {
    const std::uint64_t tag = field(extra + at, 2), length = field(extra + at + 2, 2);
    if (at + 4 + length > extra_bytes) break;
    if (tag == 1) {
      std::uint64_t next = at + 4;
      const auto take = [&](std::uint64_t& into) {
        if (next + 8 > at + 4 + length)
          throw UsageError(what + ": zip entry " + excerpt(entry.name) + " has a ZIP64 field too short for its sizes");
        into = field(extra + next, 8);
        next += 8;
      };
      if (uncompressed_wide) take(entry.uncompressed);
      if (compressed_wide) take(entry.compressed);
      return;
    }
    at += 4 + length;
  }
  throw UsageError(what + ": zip entry " + excerpt(entry.name) + " declares ZIP64 sizes without their field");
}

}  // namespace

std::vector<ZipEntry> read_zip_directory(const std::uint8_t* bytes, std::uint64_t size, const std::string& what) {
  const Directory d = directory_of(bytes, size, what);
  std::vector<ZipEntry> entries;
  entries.reserve(d.entries);
  std::uint64_t at = d.offset;
  const std::uint64_t stop = d.offset + d.bytes;
  for (std::uint64_t i = 0; i < d.entries; ++i) {
    if (stop - at < kEntryBytes || field(bytes + at, 4) != kEntrySignature)
      throw UsageError(what + ": zip directory entry " + std::to_string(i) + " at byte " + std::to_string(at) +
                       " is cut or mis-signed: expected a whole archive");
    const std::uint8_t* header = bytes + at;
    const std::uint64_t name_bytes = field(header + 28, 2), extra_bytes = field(header + 30, 2),
                        comment_bytes = field(header + 32, 2);
    if (stop - at - kEntryBytes < name_bytes + extra_bytes + comment_bytes)
      throw UsageError(what + ": zip directory entry " + std::to_string(i) + " runs past the directory's end");
    ZipEntry entry;
    entry.name.assign(reinterpret_cast<const char*>(header + kEntryBytes), name_bytes);
    entry.method = static_cast<std::uint16_t>(field(header + 10, 2));
    entry.compressed = field(header + 20, 4);
    entry.uncompressed = field(header + 24, 4);
    const bool uncompressed_wide = entry.uncompressed == 0xFFFFFFFF, compressed_wide = entry.compressed == 0xFFFFFFFF;
    if (uncompressed_wide || compressed_wide)
      read_zip64_sizes(header + kEntryBytes + name_bytes, extra_bytes, entry, uncompressed_wide, compressed_wide, what);
    entries.push_back(std::move(entry));
    at += kEntryBytes + name_bytes + extra_bytes + comment_bytes;
  }
  return entries;
}

void check_declared_sizes(const std::vector<ZipEntry>& entries, std::uint64_t file_bytes, const std::string& what) {
  std::uint64_t total = 0;
  for (const ZipEntry& entry : entries)
    total = entry.uncompressed > UINT64_MAX - total ? UINT64_MAX : total + entry.uncompressed;
  const std::uint64_t bound = kMaxInflation * file_bytes + kInflationSlack;
  if (total <= bound) return;
  const auto largest = std::max_element(entries.begin(), entries.end(),
                                        [](const ZipEntry& a, const ZipEntry& b) { return a.uncompressed < b.uncompressed; });
  throw UsageError(what + ": its zip entries declare " + std::to_string(total) + " bytes once inflated, from a " +
                   std::to_string(file_bytes) + "-byte file (" + excerpt(largest->name) + " alone " +
                   std::to_string(largest->uncompressed) + " from " + std::to_string(largest->compressed) +
                   "): expected at most " + std::to_string(kMaxInflation) + " times the file plus 64 MiB (torch.jit.save "
                   "stores tensor records as they are)");
}

}  // namespace gpubench
