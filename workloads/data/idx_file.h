#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/io/mapped_file.h"

namespace gpubench {

// An IDX file (the MNIST format): big-endian header 0x00 0x00 <type> <ndims>, then one
// uint32 per dimension, then the data. Only unsigned bytes (type 0x08) are supported,
// which is what MNIST uses.
// The data stay in the mapped file: nothing is copied until a caller converts it.
struct IdxArray {
  std::vector<std::uint32_t> dims;
  std::shared_ptr<const MappedFile> file;
  std::size_t offset = 0;  // of the first element
  std::size_t elements = 0;
  const std::uint8_t* data() const { return file->data() + offset; }
};

// Throws UsageError naming the file and exactly what is wrong (missing, bad magic,
// unsupported type, truncated, trailing bytes).
IdxArray read_idx_file(const std::string& path);

}  // namespace gpubench
