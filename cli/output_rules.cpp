#include "cli/output_rules.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/errors.h"
#include "core/io/atomic_file.h"
#include "harness/run/child_process.h"
#include "workloads/config_model.h"
#include "workloads/data/image_folder.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

fs::path resolved(const std::string& path) {
  std::error_code error;
  const fs::path canonical = fs::weakly_canonical(fs::absolute(path), error);
  return error ? fs::absolute(path).lexically_normal() : canonical;
}


// A file that an input folder reads through a link, by the (device, inode) it resolves to,
// and the sentence that says so: an output there would be swapped in for it by the atomic
// replace (the link would then lead to the report).
using LinkedFiles = std::map<std::pair<std::uint64_t, std::uint64_t>, std::string>;

// Whether `inner` is `outer` or lies inside it (`outer` a folder), component by component.
bool within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty() && std::next(o) == outer.end()) break;  // a trailing slash
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

// A --data folder and what its reader reaches through links: the folders and images of
// its ImageFolder walk (resnet50's; in an MNIST folder the walk finds at most links in
// subfolders, which refuses an output the reader would not have read, never the reverse),
// and its own entries that link to files (MNIST's IDX files).
void add_folder_input(const std::string& what, const std::string& root, std::vector<NamedPath>& paths,
                      LinkedFiles& files) {
  paths.emplace_back(what, root, false, true);
  const std::string whose = what + " ('" + root + "')";
  const ImageTreeLinks links = image_folder_links(root);
  for (const auto& folder : links.folders)
    paths.emplace_back("a folder of " + whose + " through the link '" + folder.walked + "'", folder.resolved, false, true);
  for (const auto& [file, link] : links.images) files.emplace(file, "an image " + whose + " reads through the link '" + link + "'");
  std::error_code error;
  for (auto it = fs::directory_iterator(root, error); !error && it != fs::directory_iterator(); it.increment(error)) {
    struct stat info {};
    if (it->is_symlink(error) && ::stat(it->path().c_str(), &info) == 0 && S_ISREG(info.st_mode))
      files.emplace(std::make_pair(info.st_dev, info.st_ino),
                    "a file " + whose + " reads through the link '" + it->path().string() + "'");
  }
}

// Whether `path` is a regular file starting as a zip archive does (a TorchScript --model).
bool is_zip_file(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return false;  // never opens a FIFO
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4;
}

// The shard file names a safetensors index's weight_map gives, as far as it can be read
// (the workload's reader, workloads/formats/safetensors_weights.h, checks it; here each
// name is only a path to keep the outputs off).
std::vector<std::string> shards_named_by(const std::string& index) {
  constexpr std::uintmax_t kMaxIndexBytes = 64u << 20;  // as the reader's bound
  std::error_code error;
  if (!fs::is_regular_file(index, error) || fs::file_size(index, error) > kMaxIndexBytes) return {};
  std::ifstream in(index, std::ios::binary);
  const nlohmann::json root = nlohmann::json::parse(in, nullptr, false);
  const auto map = root.is_object() ? root.find("weight_map") : root.end();
  if (map == root.end() || !map->is_object()) return {};
  std::vector<std::string> shards;
  for (const auto& shard : *map)
    if (shard.is_string() && shard.get_ref<const std::string&>().find('/') == std::string::npos &&
        std::find(shards.begin(), shards.end(), shard.get<std::string>()) == shards.end())
      shards.push_back(shard.get<std::string>());
  return shards;
}

// Every file a --model reads: the archive, or the Hugging Face folder's config.json, its
// single-file weights or their index and the shards the index names (whichever the folder
// has: one written there would be read as the model by the next run). A link is resolved,
// as every path here is: an output that is the blob a cache's link leads to is refused too.
void add_model_inputs(const std::string& name, const std::string& path, std::vector<NamedPath>& paths) {
  const std::string what = "--model " + name;
  std::error_code error;
  if (!fs::is_directory(path, error)) paths.emplace_back(what, path);
  if (is_zip_file(path)) return;
  const fs::path folder = model_folder(path);
  const auto add = [&](const std::string& file, const std::string& role) {
    paths.emplace_back(what + "'s " + role, (folder / file).string());
  };
  add("config.json", "config.json");
  add("model.safetensors", "weights");
  add("model.safetensors.index.json", "weights index");
  for (const std::string& shard : shards_named_by((folder / "model.safetensors.index.json").string()))
    add(shard, "weights shard");
}

// An output file that already exists and is a file an input reads through a link.
void refuse_linked_files(const std::vector<NamedPath>& paths, const LinkedFiles& files) {
  for (const NamedPath& output : paths) {
    struct stat info {};
    if (!output.output || output.folder || ::stat(output.path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    const auto found = files.find({info.st_dev, info.st_ino});
    if (found != files.end())
      throw UsageError(output.what + " '" + output.path + "' is " + found->second +
                       ": it would overwrite an input; expected a path outside it");
  }
}

// The run's private folder is made in $TMPDIR, else /tmp (io/private_dir.cpp, which this
// mirrors). Inside an input folder the run would read it as input: an ImageFolder tree
// gains an empty class and its configs fail mid-matrix.
void refuse_private_dir_in_inputs(const std::vector<NamedPath>& paths) {
  const char* tmpdir = std::getenv("TMPDIR");
  const bool set = tmpdir != nullptr && *tmpdir != '\0';
  const std::string parent = set ? tmpdir : "/tmp";
  const fs::path real = resolved(parent);
  for (const NamedPath& input : paths) {
    if (input.output || !input.folder || !within(real, input.real)) continue;
    throw UsageError((set ? "TMPDIR '" + parent + "'" : std::string("/tmp (TMPDIR is unset)")) + " " +
                     (real == input.real ? "is " : "lies inside ") + input.what + " ('" + input.path +
                     "'): gpubench makes the run's private folder there, and it would be read as input (an empty " +
                     "class of an ImageFolder tree); expected TMPDIR set to a folder outside every input folder");
  }
}

}  // namespace

NamedPath::NamedPath(std::string what, std::string path, bool output, bool folder)
    : what(std::move(what)), path(std::move(path)), output(output), folder(folder), real(resolved(this->path)) {}

void refuse_overlaps(const std::vector<NamedPath>& paths) {
  for (const NamedPath& output : paths) {
    // A device or FIFO (/dev/null, /dev/stdout) is written through, never replaced: two
    // outputs may share one, and an input cannot be one.
    if (!output.output || written_in_place(output.path)) continue;
    for (const NamedPath& other : paths) {
      if (&other == &output) continue;
      std::string relation;
      if (output.real == other.real) relation = "is";
      else if (other.folder && within(output.real, other.real)) relation = "lies inside";
      else if (output.folder && within(other.real, output.real)) relation = "is a folder holding";  // --hta-dir around an input
      if (relation.empty()) continue;
      const std::string fix = other.output ? "expected two separate paths" : "it would overwrite an input; expected a path outside it";
      throw UsageError(output.what + " '" + output.path + "' " + relation + " " + other.what + " ('" + other.path +
                       "'): " + fix);
    }
  }
}

void check_outputs(const CliOptions& options) {
  std::vector<NamedPath> paths = {{"--out", options.out, true}};
  if (!options.trace.empty()) paths.emplace_back("--trace", options.trace, true);
  if (!options.settings.hta_dir.empty()) paths.emplace_back("--hta-dir", options.settings.hta_dir, true, true);
  if (!options.ceilings.empty()) paths.emplace_back("--ceilings", options.ceilings);
  LinkedFiles linked_files;
  for (const auto& [workload, path] : options.settings.data_paths) {
    if (fs::is_directory(path)) add_folder_input("--data " + workload, path, paths, linked_files);
    else paths.emplace_back("--data " + workload, path);
  }
  for (const auto& [name, path] : options.settings.model_paths) add_model_inputs(name, path, paths);
  paths.emplace_back("the gpubench executable", self_executable());
  refuse_overlaps(paths);  // first: then --hta-dir is never created for a refused run
  refuse_linked_files(paths, linked_files);
  refuse_private_dir_in_inputs(paths);
  check_writable(options.out, "--out");
  if (!options.trace.empty()) check_writable(options.trace, "--trace");
  if (!options.settings.hta_dir.empty()) check_writable_folder(options.settings.hta_dir, "--hta-dir");
}

std::vector<OutputLock> lock_outputs(const CliOptions& options) {
  std::vector<OutputLock> locks;
  locks.emplace_back(options.out, "--out");
  if (!options.trace.empty()) locks.emplace_back(options.trace, "--trace");
  return locks;
}

}  // namespace gpubench
