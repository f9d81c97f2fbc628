#include "workloads/data/image_augment.h"

#include <cmath>

namespace gpubench {
namespace {

constexpr double kMinScale = 0.08, kMaxScale = 1.0;
const double kLogMinRatio = std::log(3.0 / 4.0), kLogMaxRatio = std::log(4.0 / 3.0);

// Uniform in [low, high) from 53 random bits: the same on every standard library.
double uniform(std::mt19937_64& rng, double low, double high) {
  return low + (high - low) * static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0);
}

// Uniform integer in [0, n).
std::int64_t below(std::mt19937_64& rng, std::int64_t n) { return static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n)); }

}  // namespace

CropBox random_resized_crop_box(std::int64_t height, std::int64_t width, std::mt19937_64& rng) {
  const double area = static_cast<double>(height * width);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target_area = area * uniform(rng, kMinScale, kMaxScale);
    const double aspect = std::exp(uniform(rng, kLogMinRatio, kLogMaxRatio));
    const auto w = static_cast<std::int64_t>(std::llround(std::sqrt(target_area * aspect)));
    const auto h = static_cast<std::int64_t>(std::llround(std::sqrt(target_area / aspect)));
    if (w > 0 && w <= width && h > 0 && h <= height) return {below(rng, height - h + 1), below(rng, width - w + 1), h, w};
  }
  const double in_ratio = static_cast<double>(width) / static_cast<double>(height);
  std::int64_t w = width, h = height;
  if (in_ratio < 3.0 / 4.0) h = static_cast<std::int64_t>(std::llround(static_cast<double>(w) / (3.0 / 4.0)));
  else if (in_ratio > 4.0 / 3.0) w = static_cast<std::int64_t>(std::llround(static_cast<double>(h) * (4.0 / 3.0)));
  h = std::min(h, height);
  w = std::min(w, width);
  return {(height - h) / 2, (width - w) / 2, h, w};
}

torch::Tensor augment_for_training(const torch::Tensor& image_hwc, std::int64_t size, std::mt19937_64& rng) {
  const CropBox box = random_resized_crop_box(image_hwc.size(0), image_hwc.size(1), rng);
  auto crop = image_hwc.narrow(0, box.top, box.height).narrow(1, box.left, box.width).permute({2, 0, 1});
  auto resized = torch::nn::functional::interpolate(
      crop.unsqueeze(0).to(torch::kFloat32),
      torch::nn::functional::InterpolateFuncOptions()
          .size(std::vector<std::int64_t>{size, size})
          .mode(torch::kBilinear)
          .align_corners(false)
          .antialias(true));
  auto image = resized.squeeze(0);
  if (uniform(rng, 0.0, 1.0) < 0.5) image = image.flip({2});
  static const auto mean = torch::tensor({0.485, 0.456, 0.406}, torch::kFloat32).view({3, 1, 1}) * 255.0;
  static const auto inv_std = 1.0 / (torch::tensor({0.229, 0.224, 0.225}, torch::kFloat32).view({3, 1, 1}) * 255.0);
  return ((image - mean) * inv_std).contiguous();
}

}  // namespace gpubench
