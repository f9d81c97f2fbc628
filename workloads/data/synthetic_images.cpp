#include "workloads/data/synthetic_images.h"

#include <ATen/CPUGeneratorImpl.h>

namespace gpubench {
namespace {
constexpr double kPatternScale = 0.05;
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
  return TensorDataset(images.contiguous(), labels);
}

}  // namespace gpubench
