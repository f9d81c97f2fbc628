#pragma once
#include <cstdint>
#include <vector>

#include "workloads/data/tensor_dataset.h"

namespace gpubench {

// Class-conditional images: each class has a fixed random pattern; a sample is its
// class's pattern plus independent noise. Deterministic by seed and learnable (a model
// that finds the patterns drives the loss down), unlike pure noise.
TensorDataset make_class_pattern_images(std::int64_t samples, const std::vector<std::int64_t>& image_shape,
                                        std::int64_t classes, std::uint64_t seed);

}  // namespace gpubench
