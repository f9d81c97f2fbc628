#pragma once
#include <cstdint>
#include <random>

#include <torch/torch.h>

namespace gpubench {

// torchvision's ImageNet training transforms, on a decoded [H, W, 3] uint8 image:
// RandomResizedCrop(size, scale=(0.08, 1), ratio=(3/4, 4/3)) with bilinear antialiased
// resizing, RandomHorizontalFlip(0.5), ToTensor (/255) and Normalize(ImageNet mean, std).
// Returns [3, size, size] float32.

struct CropBox {
  std::int64_t top = 0, left = 0, height = 0, width = 0;
};

// RandomResizedCrop.get_params: ten tries at a random area share and log-uniform aspect
// ratio that fits, else the centre crop clamped to the ratio range.
CropBox random_resized_crop_box(std::int64_t height, std::int64_t width, std::mt19937_64& rng);

torch::Tensor augment_for_training(const torch::Tensor& image_hwc, std::int64_t size, std::mt19937_64& rng);

}  // namespace gpubench
