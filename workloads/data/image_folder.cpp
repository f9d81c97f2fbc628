#include "workloads/data/image_folder.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "core/config/errors.h"
#include "workloads/data/image_augment.h"
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

// `flag` is "--data NAME", the workload's flag the tree came from.
UsageError bad_tree(const std::string& flag, const std::string& root, const std::string& why) {
  return UsageError(flag + "='" + root + "' " + why +
                    ": expected an ImageFolder tree (ROOT/<class>/<image>.jpg|.jpeg|.png)");
}

ImageLimits limits_of(const ImageFolderOptions& options) {
  ImageLimits limits;
  // Capped far above any decodable image, so 3 bytes per pixel cannot overflow.
  if (options.max_image_pixels > 0) limits.max_pixels = std::min(options.max_image_pixels, std::int64_t{1} << 50);
  return limits;
}

// The walk of one class folder (os.walk(followlinks=True), sorted, as torchvision's
// ImageFolder): its image files, and the links it follows to reach folders and images.
// Throws fs::filesystem_error where it cannot go on (an unreadable folder, a link loop);
// `walk` keeps what was met before.
struct ClassFolderWalk {
  std::vector<std::string> images;
  std::vector<std::string> folder_links, image_links;
};

void walk_class_folder(const fs::path& folder, ClassFolderWalk& walk) {
  for (auto it = fs::recursive_directory_iterator(folder, fs::directory_options::follow_directory_symlink);
       it != fs::recursive_directory_iterator(); ++it) {
    const bool image = it->is_regular_file() && has_image_extension(it->path());
    if (image) walk.images.push_back(it->path().string());
    if (!it->is_symlink()) continue;  // a plain entry: its type came with the directory read, no system call
    if (image) walk.image_links.push_back(it->path().string());
    else if (it->is_directory()) walk.folder_links.push_back(it->path().string());
  }
  std::sort(walk.images.begin(), walk.images.end());
}

// The class folders (entries of root that are folders, links followed), in sorted order.
std::vector<fs::path> class_folders(const std::string& root, std::error_code& error) {
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(root, error))
    if (entry.is_directory()) folders.push_back(entry.path());
  std::sort(folders.begin(), folders.end());
  return folders;
}

// The class folders in sorted order, each with its images; a folder without any is an error.
std::vector<ImageFile> scan_tree(const std::string& flag, const std::string& root, std::int64_t max_classes,
                                 std::int64_t& classes) {
  std::error_code error;
  if (!fs::is_directory(root, error)) throw bad_tree(flag, root, "is not a directory");
  const std::vector<fs::path> folders = class_folders(root, error);
  if (error) throw bad_tree(flag, root, "cannot be listed (" + error.message() + ")");
  if (folders.empty()) throw bad_tree(flag, root, "has no class folders");
  classes = static_cast<std::int64_t>(folders.size());
  if (classes > max_classes)
    throw bad_tree(flag, root, "has " + std::to_string(classes) + " class folders but the model has " +
                             std::to_string(max_classes) + " outputs");
  std::vector<ImageFile> files;
  for (std::size_t label = 0; label < folders.size(); ++label) {
    ClassFolderWalk walk;
    try {
      walk_class_folder(folders[label], walk);
    } catch (const fs::filesystem_error& walk_error) {
      throw bad_tree(flag, root, "has a class folder that cannot be read: " + std::string(walk_error.what()));
    }
    if (walk.images.empty())
      throw bad_tree(flag, root, "has a class folder without JPEG or PNG files: '" + folders[label].string() + "'");
    for (auto& path : walk.images) files.push_back({std::move(path), static_cast<std::int64_t>(label)});
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

// What the up-front check may hold at once, over all its threads (plus one image larger
// than a thread's share, which is checked alone).
constexpr std::int64_t kCheckMemoryBytes = std::int64_t{1} << 30;

// One file: its signature and size before it is read, its header before it is decoded,
// then (decode) a whole decode that is dropped at once: only it finds a truncated file.
// A file or image over `share` of the check's memory waits for its turn `alone`.
void check_image(const std::string& path, bool decode, const ImageLimits& limits, std::int64_t share, std::mutex& alone) {
  std::unique_lock<std::mutex> turn(alone, std::defer_lock);
  std::error_code error;
  const auto size = static_cast<std::int64_t>(fs::file_size(path, error));  // an error is read_image_file's to name
  if (!error && size > share) turn.lock();
  const std::string bytes = read_image_file(path, limits);
  const ImageSize header = read_image_size(bytes, path, limits);
  if (!decode) return;
  if (!turn.owns_lock() && static_cast<std::int64_t>(bytes.size()) + header.decode_bytes > share) turn.lock();
  (void)decode_image(bytes, path, limits);
}

// Checks every file on all cores; the first failure is a UsageError.
void check_images(const std::string& flag, const std::vector<ImageFile>& files, bool decode, const ImageLimits& limits) {
  std::atomic<std::size_t> next{0};
  std::mutex failure_lock, alone;
  std::string failure;
  const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 16));
  const auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      try {
        check_image(files[i].path, decode, limits, kCheckMemoryBytes / threads, alone);
      } catch (const std::exception& error) {
        const std::lock_guard<std::mutex> lock(failure_lock);
        if (failure.empty()) failure = error.what();
        next = files.size();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& thread : pool) thread.join();
  if (!failure.empty()) throw UsageError(flag + ": " + failure);
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
        limits_(limits_of(options)),
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
      // The same limits as the check: a file replaced since is refused, not decoded.
      const auto pixels = decode_image(read_image_file(file.path, limits_), file.path, limits_);
      images[b].copy_(augment_for_training(pixels, options_.image_size, rng));
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
  ImageLimits limits_;
  std::unique_ptr<std::atomic<std::uint32_t>[]> visits_;  // per sample: how often it was read
};

// Whether `inner` is `outer` or lies inside it, both resolved, component by component.
bool within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i)
    if (i == inner.end() || *i != *o) return false;
  return true;
}

// Adds the links the walk of one class folder follows (the folder itself, if it is one).
void add_links(const fs::path& folder, const fs::path& resolved_root, std::set<std::string>& seen, ImageTreeLinks& links) {
  ClassFolderWalk walk;
  std::error_code error;
  if (fs::is_symlink(folder, error)) walk.folder_links.push_back(folder.string());
  try {
    walk_class_folder(folder, walk);
  } catch (const fs::filesystem_error&) {  // a loop: open_image_folder refuses the tree; keep what was met
  }
  for (const std::string& link : walk.folder_links) {
    const fs::path target = fs::canonical(link, error);
    if (!error && !within(target, resolved_root) && seen.insert(target.string()).second)
      links.folders.push_back({link, target.string()});
  }
  // One stat each, not a realpath each: a farm of links to a million images costs a second
  // or two here.
  for (const std::string& link : walk.image_links) {
    struct stat info {};
    if (::stat(link.c_str(), &info) == 0) links.images.emplace(std::make_pair(info.st_dev, info.st_ino), link);
  }
}

}  // namespace

std::shared_ptr<const SampleReader> open_image_folder(const std::string& root, const ImageFolderOptions& options) {
  std::int64_t classes = 0;
  const std::string flag = "--data " + options.workload;
  std::vector<ImageFile> all = scan_tree(flag, root, options.classes, classes);
  const auto total = static_cast<std::int64_t>(all.size());
  std::vector<ImageFile> chosen = spread_selection(std::move(all), options.samples);
  check_images(flag, chosen, options.full_check, limits_of(options));
  return std::make_shared<ImageFolderReader>(root, std::move(chosen), total, classes, options);
}

ImageTreeLinks image_folder_links(const std::string& root) {
  ImageTreeLinks links;
  std::error_code error;
  const fs::path resolved_root = fs::canonical(root, error);
  if (error) return links;
  std::set<std::string> seen;
  try {
    for (const fs::path& folder : class_folders(root, error)) add_links(folder, resolved_root, seen, links);
  } catch (const fs::filesystem_error&) {  // as above
  }
  return links;
}

}  // namespace gpubench
