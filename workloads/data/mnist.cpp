#include "workloads/data/mnist.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>

#include "core/config/errors.h"
#include "workloads/data/idx_file.h"

namespace gpubench {

const char* const kMnistImagesFile = "train-images-idx3-ubyte";
const char* const kMnistLabelsFile = "train-labels-idx1-ubyte";

TensorDataset load_mnist_idx(const std::string& directory, std::int64_t max_samples) {
  struct stat info {};
  if (stat(directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    throw UsageError("--data '" + directory + "' is not a directory: expected a folder with " + kMnistImagesFile +
                     " and " + kMnistLabelsFile);
  const std::string images_path = directory + "/" + kMnistImagesFile;
  const std::string labels_path = directory + "/" + kMnistLabelsFile;
  const IdxArray images = read_idx_file(images_path);
  const IdxArray labels = read_idx_file(labels_path);
  if (images.dims.size() != 3 || images.dims[1] != 28 || images.dims[2] != 28)
    throw UsageError("IDX file '" + images_path + "' is not N x 28 x 28 images");
  if (labels.dims.size() != 1) throw UsageError("IDX file '" + labels_path + "' is not a 1-D label vector");
  if (labels.dims[0] != images.dims[0])
    throw UsageError("MNIST files disagree: '" + images_path + "' has " + std::to_string(images.dims[0]) +
                     " images but '" + labels_path + "' has " + std::to_string(labels.dims[0]) + " labels");
  const std::uint8_t* label = labels.data();
  for (std::size_t i = 0; i < labels.elements; ++i)
    if (label[i] > 9)
      throw UsageError("IDX file '" + labels_path + "' has label " + std::to_string(label[i]) + " at index " +
                       std::to_string(i) + ", expected 0..9");
  const auto total = static_cast<std::int64_t>(images.dims[0]);
  const std::int64_t count = max_samples > 0 ? std::min(total, max_samples) : total;
  // What the conversion holds at once: the float images (4 bytes a pixel) and the labels.
  const std::uint64_t needed = static_cast<std::uint64_t>(count) * (28 * 28 * 4 + 8);
  if (const std::uint64_t available = available_memory_bytes(); available > 0 && needed > available / 2)
    throw UsageError("IDX file '" + images_path + "' (" + std::to_string(images.file->size()) + " bytes): its " +
                     std::to_string(count) + " images need " + std::to_string(needed >> 20) + " MiB as float, more than " +
                     "half of this machine's available memory (" + std::to_string(available >> 20) +
                     " MiB): expected a smaller file or preset");
  auto pixels = torch::from_blob(const_cast<std::uint8_t*>(images.data()), {count, 1, 28, 28}, torch::kUInt8);
  // MNIST's published training-set mean and standard deviation; in place, one float copy.
  auto inputs = pixels.to(torch::kFloat32);
  inputs.div_(255.0).sub_(0.1307).div_(0.3081);
  auto targets = torch::from_blob(const_cast<std::uint8_t*>(label), {count}, torch::kUInt8).to(torch::kInt64);
  return TensorDataset(inputs, targets,
                       "mnist-idx:" + directory + " (" + std::to_string(count) + " of " + std::to_string(total) + " images)");
}

std::uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

}  // namespace gpubench
