#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "workloads/data/dataset.h"

namespace gpubench {

struct ImageFolderOptions {
  std::int64_t samples = 0;  // the preset's dataset size: a larger tree is sampled evenly
  std::uint64_t seed = 0;    // augmentation
  std::int64_t classes = 0;  // the model's outputs: a tree with more classes is refused
  std::int64_t image_size = 224;
  bool full_check = true;    // decode every selected image now (else read headers only)
};

// torchvision's ImageFolder layout: ROOT/<class>/**/<file>.{jpg,jpeg,png} (extensions in
// any case; other files are ignored, as torchvision does), classes numbered in sorted name
// order. Every selected file is read and checked before training: a missing root, no class
// folder, a class folder without images, more classes than the model has, an unreadable,
// non-image or corrupt file is a UsageError naming it. Each sample is decoded and augmented
// (image_augment.h) when the DataLoader asks for it, on the worker thread that asks: the
// input pipeline whose cost --workers and pinned memory hide. The augmentation of a
// sample's k-th visit is seeded by (seed, sample, k), so runs repeat.
std::shared_ptr<const SampleReader> open_image_folder(const std::string& root, const ImageFolderOptions& options);

}  // namespace gpubench
