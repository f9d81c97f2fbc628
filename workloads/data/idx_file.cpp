#include "workloads/data/idx_file.h"

#include "core/config/errors.h"

namespace gpubench {
namespace {

std::uint32_t big_endian_u32(const std::uint8_t* bytes) {
  return (std::uint32_t{bytes[0]} << 24) | (std::uint32_t{bytes[1]} << 16) | (std::uint32_t{bytes[2]} << 8) |
         std::uint32_t{bytes[3]};
}

}  // namespace

IdxArray read_idx_file(const std::string& path) {
  auto file = std::make_shared<const MappedFile>(path, "IDX file");  // regular files only
  const std::uint8_t* bytes = file->data();
  const std::size_t size = file->size();
  const auto fail = [&](const std::string& why) { return UsageError("IDX file '" + path + "' " + why); };
  if (size < 4) throw fail("is truncated: " + std::to_string(size) + " bytes, expected a 4-byte magic");
  if (bytes[0] != 0 || bytes[1] != 0)
    throw fail("has a bad magic number (first bytes must be 0x00 0x00): not an IDX file");
  if (bytes[2] != 0x08)
    throw fail("has element type code " + std::to_string(bytes[2]) + ", expected 8 (0x08, unsigned byte)");
  const std::size_t ndims = bytes[3];
  if (ndims == 0 || ndims > 4) throw fail("has " + std::to_string(ndims) + " dimensions, expected 1 to 4");
  const std::size_t header = 4 + 4 * ndims;
  if (size < header) throw fail("is truncated inside its header");
  IdxArray array;
  std::size_t elements = 1;
  for (std::size_t d = 0; d < ndims; ++d) {
    array.dims.push_back(big_endian_u32(&bytes[4 + 4 * d]));
    if (array.dims.back() == 0) throw fail("has a zero-sized dimension " + std::to_string(d));
    // Compared before multiplying: four 32-bit dimensions would overflow the count.
    if (elements > size / array.dims.back())
      throw fail("is truncated: its header promises more elements than the file's " + std::to_string(size) + " bytes");
    elements *= array.dims.back();
  }
  const std::size_t payload = size - header;
  if (payload < elements)
    throw fail("is truncated: " + std::to_string(payload) + " data bytes, header promises " + std::to_string(elements));
  if (payload > elements)
    throw fail("has " + std::to_string(payload - elements) + " trailing bytes after " + std::to_string(elements) +
               " elements");
  array.file = std::move(file);
  array.offset = header;
  array.elements = elements;
  return array;
}

}  // namespace gpubench
