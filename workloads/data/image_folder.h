#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "workloads/data/dataset.h"
#include "workloads/data/image_decode.h"

namespace gpubench {

struct ImageFolderOptions {
  std::int64_t samples = 0;  // the preset's dataset size: a larger tree is sampled evenly
  std::uint64_t seed = 0;    // augmentation
  std::int64_t classes = 0;  // the model's outputs: a tree with more classes is refused
  std::int64_t image_size = 224;
  bool full_check = true;    // decode every selected image now (else read headers only)
  // --max-image-pixels: an image above it is refused from its header, a file above 3 bytes
  // per pixel of it (plus 16 MiB) unread (ImageLimits, image_decode.h); 0 means the default.
  std::int64_t max_image_pixels = kDefaultMaxImagePixels;
  std::string workload = "resnet50";  // the --data NAME its messages name
};

// torchvision's ImageFolder layout: ROOT/<class>/**/<file>.{jpg,jpeg,png} (extensions in
// any case; other files are ignored, as torchvision does; links to folders and files are
// followed, as os.walk(followlinks=True) does), classes numbered in sorted name order. Every
// selected file is checked before training: a missing root, no class folder, a class
// folder without images, more classes than the model has, an unreadable, non-image,
// oversized (ImageLimits) or corrupt file is a UsageError naming it. The check decodes each
// image and drops it at once (full_check; else reads headers only): it never holds the
// decoded tree, only one image per thread, and an image too large for its thread's share
// of 1 GiB is checked alone. Each sample is decoded and augmented (image_augment.h) when the
// DataLoader asks for it, on the worker thread that asks: the input pipeline whose cost
// --workers and pinned memory hide. The augmentation of a sample's k-th visit is seeded by
// (seed, sample, k), so runs repeat.
std::shared_ptr<const SampleReader> open_image_folder(const std::string& root, const ImageFolderOptions& options);

// Where the walk of an ImageFolder tree leaves it through links, resolved: with the root
// itself, what no output may be or lie inside, and where gpubench's private folder may not
// be made (cli/output_rules.cpp).
struct ImageTreeLinks {
  struct Folder {
    std::string walked;    // as the walk reached it: ROOT/n01, ROOT/n01/more
    std::string resolved;  // links and `..` resolved: /x
  };
  // Every folder the walk follows through a link (a class folder, or one under it) that
  // resolves outside the root's resolved path; one inside is the root's already.
  std::vector<Folder> folders;
  // Every image the walk reaches through a file link, by the (device, inode) it resolves
  // to: an output that is one would be swapped in for it by an atomic replace. Maps to the
  // link's walked path.
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::string> images;
};

// The walk open_image_folder makes of `root`, for its links. A tree the walk cannot finish
// (a link loop, an unreadable folder) gives the links met before: open_image_folder refuses
// such a tree, and the run with it, before outputs are checked.
ImageTreeLinks image_folder_links(const std::string& root);

}  // namespace gpubench
