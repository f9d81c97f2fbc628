#pragma once
#include <string>

#include "workloads/data/tensor_dataset.h"

namespace gpubench {

// Real MNIST from a folder holding train-images-idx3-ubyte and train-labels-idx1-ubyte
// (the files as distributed, uncompressed). Images become [N,1,28,28] float normalised
// with MNIST's mean/std, labels int64. Throws UsageError naming the file on any mismatch.
TensorDataset load_mnist_idx(const std::string& directory);

extern const char* const kMnistImagesFile;
extern const char* const kMnistLabelsFile;

}  // namespace gpubench
