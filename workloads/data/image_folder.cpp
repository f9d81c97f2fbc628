#include "workloads/data/image_folder.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "config/errors.h"
#include "io/atomic_file.h"
#include "workloads/data/image_augment.h"
#include "workloads/data/image_decode.h"
#include "workloads/data/seed_mix.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

struct ImageFile {
  std::string path;
  std::int64_t label = 0;
};

bool has_image_extension(const fs::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) { return std::tolower(c); });
  return extension == ".jpg" || extension == ".jpeg" || extension == ".png";
}

UsageError bad_tree(const std::string& root, const std::string& why) {
  return UsageError("--data resnet50='" + root + "' " + why +
                    ": expected an ImageFolder tree (ROOT/<class>/<image>.jpg|.jpeg|.png)");
}

// Every image file under a class folder, in sorted path order (as os.walk + sorted).
std::vector<std::string> images_under(const fs::path& folder) {
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(folder, fs::directory_options::follow_directory_symlink);
       it != fs::recursive_directory_iterator(); ++it)
    if (it->is_regular_file() && has_image_extension(it->path())) files.push_back(it->path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// The class folders in sorted order, each with its images; a folder without any is an error.
std::vector<ImageFile> scan_tree(const std::string& root, std::int64_t max_classes, std::int64_t& classes) {
  std::error_code error;
  if (!fs::is_directory(root, error)) throw bad_tree(root, "is not a directory");
  std::vector<fs::path> class_folders;
  for (const auto& entry : fs::directory_iterator(root, error))
    if (entry.is_directory()) class_folders.push_back(entry.path());
  if (error) throw bad_tree(root, "cannot be listed (" + error.message() + ")");
  if (class_folders.empty()) throw bad_tree(root, "has no class folders");
  std::sort(class_folders.begin(), class_folders.end());
  classes = static_cast<std::int64_t>(class_folders.size());
  if (classes > max_classes)
    throw bad_tree(root, "has " + std::to_string(classes) + " class folders but the model has " +
                             std::to_string(max_classes) + " outputs");
  std::vector<ImageFile> files;
  for (std::size_t label = 0; label < class_folders.size(); ++label) {
    std::vector<std::string> images;
    try {
      images = images_under(class_folders[label]);
    } catch (const fs::filesystem_error& walk_error) {
      throw bad_tree(root, "has a class folder that cannot be read: " + std::string(walk_error.what()));
    }
    if (images.empty())
      throw bad_tree(root, "has a class folder without JPEG or PNG files: '" + class_folders[label].string() + "'");
    for (auto& path : images) files.push_back({std::move(path), static_cast<std::int64_t>(label)});
  }
  return files;
}

// `count` of the files spread evenly over the sorted list, so every class keeps its share.
std::vector<ImageFile> spread_selection(std::vector<ImageFile> files, std::int64_t count) {
  const auto total = static_cast<std::int64_t>(files.size());
  if (count <= 0 || count >= total) return files;
  std::vector<ImageFile> chosen;
  chosen.reserve(static_cast<std::size_t>(count));
  // The middle of each of `count` equal stretches.
  for (std::int64_t k = 0; k < count; ++k) chosen.push_back(files[static_cast<std::size_t>((2 * k + 1) * total / (2 * count))]);
  return chosen;
}

std::string read_image_bytes(const std::string& path) {
  try {
    return read_file(path, "image");
  } catch (const std::exception& error) {
    throw std::runtime_error(error.what());
  }
}

// Reads every file (headers, or whole decodes) on all cores; the first failure is a UsageError.
void check_images(const std::vector<ImageFile>& files, bool decode) {
  std::atomic<std::size_t> next{0};
  std::mutex failure_lock;
  std::string failure;
  const auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      try {
        const std::string bytes = read_image_bytes(files[i].path);
        if (decode) (void)decode_image(bytes, files[i].path);
        else (void)read_image_size(bytes, files[i].path);
      } catch (const std::exception& error) {
        const std::lock_guard<std::mutex> lock(failure_lock);
        if (failure.empty()) failure = error.what();
        next = files.size();
      }
    }
  };
  const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 16));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& thread : pool) thread.join();
  if (!failure.empty()) throw UsageError("--data resnet50: " + failure);
}


class ImageFolderReader final : public SampleReader {
 public:
  ImageFolderReader(std::string root, std::vector<ImageFile> files, std::int64_t total_files, std::int64_t classes,
                    const ImageFolderOptions& options)
      : root_(std::move(root)),
        files_(std::move(files)),
        total_files_(total_files),
        classes_(classes),
        options_(options),
        visits_(new std::atomic<std::uint32_t>[files_.size()]()) {}

  torch::data::Example<> read_batch(c10::ArrayRef<std::size_t> indices) const override {
    const auto count = static_cast<std::int64_t>(indices.size());
    auto images = torch::empty({count, 3, options_.image_size, options_.image_size}, torch::kFloat32);
    auto labels = torch::empty({count}, torch::kInt64);
    for (std::int64_t b = 0; b < count; ++b) {
      const std::size_t index = indices[static_cast<std::size_t>(b)];
      const ImageFile& file = files_.at(index);
      const std::uint32_t visit = visits_[index]++;
      std::mt19937_64 rng(seed_mix(options_.seed ^ seed_mix(index * 0x100000001B3ULL + visit)));
      images[b].copy_(augment_for_training(decode_image(read_image_bytes(file.path), file.path), options_.image_size, rng));
      labels[b] = file.label;
    }
    return {images, labels};
  }

  std::size_t size() const override { return files_.size(); }

  std::string source() const override {
    return "image-folder:" + root_ + " (" + std::to_string(files_.size()) + " of " + std::to_string(total_files_) +
           " images, " + std::to_string(classes_) + " classes; RandomResizedCrop " + std::to_string(options_.image_size) +
           ", flip, normalize)";
  }

 private:
  std::string root_;
  std::vector<ImageFile> files_;
  std::int64_t total_files_, classes_;
  ImageFolderOptions options_;
  std::unique_ptr<std::atomic<std::uint32_t>[]> visits_;  // per sample: how often it was read
};

}  // namespace

std::shared_ptr<const SampleReader> open_image_folder(const std::string& root, const ImageFolderOptions& options) {
  std::int64_t classes = 0;
  std::vector<ImageFile> all = scan_tree(root, options.classes, classes);
  const auto total = static_cast<std::int64_t>(all.size());
  std::vector<ImageFile> chosen = spread_selection(std::move(all), options.samples);
  check_images(chosen, options.full_check);
  return std::make_shared<ImageFolderReader>(root, std::move(chosen), total, classes, options);
}

}  // namespace gpubench
