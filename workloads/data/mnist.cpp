#include "workloads/data/mnist.h"

#include <sys/stat.h>

#include "config/errors.h"
#include "workloads/data/idx_file.h"

namespace gpubench {

const char* const kMnistImagesFile = "train-images-idx3-ubyte";
const char* const kMnistLabelsFile = "train-labels-idx1-ubyte";

TensorDataset load_mnist_idx(const std::string& directory) {
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
  for (std::size_t i = 0; i < labels.data.size(); ++i)
    if (labels.data[i] > 9)
      throw UsageError("IDX file '" + labels_path + "' has label " + std::to_string(labels.data[i]) + " at index " +
                       std::to_string(i) + ", expected 0..9");
  const auto count = static_cast<std::int64_t>(images.dims[0]);
  auto pixels = torch::from_blob(const_cast<std::uint8_t*>(images.data.data()), {count, 1, 28, 28}, torch::kUInt8);
  // MNIST's published training-set mean and standard deviation.
  auto inputs = (pixels.to(torch::kFloat32) / 255.0 - 0.1307) / 0.3081;
  auto targets = torch::from_blob(const_cast<std::uint8_t*>(labels.data.data()), {count}, torch::kUInt8).to(torch::kInt64);
  return TensorDataset(inputs.contiguous(), targets, "mnist-idx:" + directory);
}

}  // namespace gpubench
