#include "workloads/data/synthetic_images.h"
#include "workloads/data/seed_mix.h"

#include <ATen/CPUGeneratorImpl.h>

namespace gpubench {
namespace {
constexpr double kPatternScale = 0.05;


class SyntheticImageReader final : public SampleReader {
 public:
  static constexpr std::int64_t kPatternSide = 7, kNoiseImages = 16;

  SyntheticImageReader(std::int64_t samples, std::int64_t image_size, std::int64_t classes, std::uint64_t seed)
      : samples_(samples), image_size_(image_size), classes_(classes), seed_(seed) {
    auto generator = at::detail::createCPUGenerator(seed);
    patterns_ = at::randn({classes, 3, kPatternSide, kPatternSide}, generator);
    noise_ = at::randn({kNoiseImages, 3, image_size, image_size}, generator);
  }

  torch::data::Example<> read_batch(c10::ArrayRef<std::size_t> indices) const override {
    const auto count = static_cast<std::int64_t>(indices.size());
    auto labels = torch::empty({count}, torch::kInt64);
    auto noise_rows = torch::empty({count}, torch::kInt64);
    for (std::int64_t b = 0; b < count; ++b) {
      const std::uint64_t hash = seed_mix(seed_ ^ seed_mix(indices[static_cast<std::size_t>(b)]));
      labels[b] = static_cast<std::int64_t>(hash % static_cast<std::uint64_t>(classes_));
      noise_rows[b] = static_cast<std::int64_t>((hash >> 32) % kNoiseImages);
    }
    const auto coarse = patterns_.index_select(0, labels);
    const auto pattern = torch::nn::functional::interpolate(
        coarse, torch::nn::functional::InterpolateFuncOptions()
                    .size(std::vector<std::int64_t>{image_size_, image_size_})
                    .mode(torch::kNearest));
    return {noise_.index_select(0, noise_rows).add_(pattern), labels};
  }

  std::size_t size() const override { return static_cast<std::size_t>(samples_); }
  std::string source() const override { return "synthetic(seed=" + std::to_string(seed_) + ")"; }

 private:
  std::int64_t samples_, image_size_, classes_;
  std::uint64_t seed_;
  torch::Tensor patterns_, noise_;
};

}  // namespace

TensorDataset make_class_pattern_images(std::int64_t samples, const std::vector<std::int64_t>& image_shape,
                                        std::int64_t classes, std::uint64_t seed) {
  auto generator = at::detail::createCPUGenerator(seed);
  std::vector<std::int64_t> pattern_shape{classes};
  pattern_shape.insert(pattern_shape.end(), image_shape.begin(), image_shape.end());
  std::vector<std::int64_t> batch_shape{samples};
  batch_shape.insert(batch_shape.end(), image_shape.begin(), image_shape.end());

  // Faint patterns (5% of the noise's scale per pixel): summed over hundreds of pixels a
  // class is still recognisable, but not at a glance, so the loss falls over many steps
  // instead of collapsing to zero on the first few, and precision differences show.
  const auto patterns = at::randn(pattern_shape, generator) * kPatternScale;
  const auto labels = at::randint(classes, {samples}, generator, torch::kInt64);
  const auto noise = at::randn(batch_shape, generator);
  auto images = patterns.index_select(0, labels) + noise;
  return TensorDataset(images.contiguous(), labels, "synthetic(seed=" + std::to_string(seed) + ")");
}

}  // namespace gpubench

namespace gpubench {

std::shared_ptr<const SampleReader> make_synthetic_image_reader(std::int64_t samples, std::int64_t image_size,
                                                               std::int64_t classes, std::uint64_t seed) {
  return std::make_shared<SyntheticImageReader>(samples, image_size, classes, seed);
}

}  // namespace gpubench
