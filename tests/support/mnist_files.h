#pragma once
// MNIST IDX files for end-to-end tests: a folder with train-images-idx3-ubyte (count
// 28x28 images) and train-labels-idx1-ubyte. `sparse`: the data are holes (zeros that
// take no disk), for files of gigabytes.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/run_command.h"

namespace gpubench::test_support {

inline void write_be32(std::ofstream& out, std::uint32_t value) {
  const char bytes[4] = {static_cast<char>(value >> 24), static_cast<char>(value >> 16), static_cast<char>(value >> 8),
                         static_cast<char>(value)};
  out.write(bytes, 4);
}

inline std::string mnist_folder(std::uint32_t count, bool sparse = false) {
  const std::string dir = make_temp_dir("mnist");
  const std::string images = dir + "/train-images-idx3-ubyte", labels = dir + "/train-labels-idx1-ubyte";
  {
    std::ofstream out(images, std::ios::binary);
    for (std::uint32_t v : {0x803u, count, 28u, 28u}) write_be32(out, v);
    if (!sparse) out << std::string(std::size_t{count} * 28 * 28, '\x40');
    std::ofstream out_labels(labels, std::ios::binary);
    for (std::uint32_t v : {0x801u, count}) write_be32(out_labels, v);
    if (!sparse)
      for (std::uint32_t i = 0; i < count; ++i) out_labels.put(static_cast<char>(i % 10));
  }
  if (sparse) {
    std::filesystem::resize_file(images, 16 + std::uint64_t{count} * 28 * 28);
    std::filesystem::resize_file(labels, 8 + std::uint64_t{count});
  }
  return dir;
}

}  // namespace gpubench::test_support
