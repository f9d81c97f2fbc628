#pragma once
#include <string>

#include "workloads/data/tensor_dataset.h"

namespace gpubench {

// Real MNIST from a folder holding train-images-idx3-ubyte and train-labels-idx1-ubyte
// (the files as distributed, uncompressed), memory-mapped. The first min(N, max_samples)
// images (the preset's dataset size; 0 = all) become [S,1,28,28] float normalised with
// MNIST's mean/std, labels int64; every label is checked. Throws UsageError naming the
// file on any mismatch, and, before converting, when the S images would not fit in
// memory (4 bytes a pixel against MemAvailable), naming the file, its size and the need.
TensorDataset load_mnist_idx(const std::string& directory, std::int64_t max_samples = 0);

// MemAvailable of /proc/meminfo in bytes (0 when it cannot be read: no check).
std::uint64_t available_memory_bytes();

extern const char* const kMnistImagesFile;
extern const char* const kMnistLabelsFile;

}  // namespace gpubench
