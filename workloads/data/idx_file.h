#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {

// An IDX file (the MNIST format): big-endian header 0x00 0x00 <type> <ndims>, then one
// uint32 per dimension, then the data. Only unsigned bytes (type 0x08) are supported,
// which is what MNIST uses.
struct IdxArray {
  std::vector<std::uint32_t> dims;
  std::vector<std::uint8_t> data;
};

// Throws UsageError naming the file and exactly what is wrong (missing, bad magic,
// unsupported type, truncated, trailing bytes).
IdxArray read_idx_file(const std::string& path);

}  // namespace gpubench
