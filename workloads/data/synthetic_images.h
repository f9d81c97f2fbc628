#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "workloads/data/tensor_dataset.h"

namespace gpubench {

// Class-conditional images: each class has a fixed random pattern; a sample is its
// class's pattern plus independent noise. Deterministic by seed and learnable (a model
// that finds the patterns drives the loss down), unlike pure noise.
TensorDataset make_class_pattern_images(std::int64_t samples, const std::vector<std::int64_t>& image_shape,
                                        std::int64_t classes, std::uint64_t seed);

// The same idea at ImageNet size, made per batch instead of held in memory (a dataset of
// 3x224x224 fp32 images would take 600 KB a sample): sample i's label is a hash of (seed, i)
// over `classes`; its image is its class's coarse pattern (7x7, upsampled to size x size,
// unit scale) plus one of 16 fixed noise images, normalised-image scale. Deterministic by
// seed, costs the loader a gather and an add per batch, as reading decoded images would.
std::shared_ptr<const SampleReader> make_synthetic_image_reader(std::int64_t samples, std::int64_t image_size,
                                                               std::int64_t classes, std::uint64_t seed);

}  // namespace gpubench
