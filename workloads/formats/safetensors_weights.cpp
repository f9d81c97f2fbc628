#include "workloads/formats/safetensors_weights.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "core/config/errors.h"
#include "core/io/mapped_file.h"
#include "workloads/formats/excerpt.h"
#include "workloads/formats/strict_json.h"

namespace gpubench {
namespace {

using nlohmann::json;

// An index of a 405B-parameter model is ~100 kB; anything near this is not an index.
constexpr std::size_t kMaxIndexBytes = 64u << 20;

// A path that exists (after links: the HF cache's snapshot files are symlinks into blobs/).
bool exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

// A weights file that is a link to nothing is a download that did not finish, not "no
// weights": refused, naming where it points.
void refuse_dangling_link(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode) || exists(path)) return;
  std::string target(4096, '\0');
  const ssize_t length = ::readlink(path.c_str(), target.data(), target.size());
  target.resize(length > 0 ? static_cast<std::size_t>(length) : 0);
  throw UsageError("model weights '" + path + "' are a symbolic link to '" + target +
                   "', which does not exist (a download that did not finish?): expected the file it names, or "
                   "--weights random to train from random init");
}

// The *.safetensors files of a folder, sorted (readdir: libtorch's own std::filesystem
// copy may bind in place of ours, LIBTORCH-COMPAT.md).
std::vector<std::string> safetensors_files_in(const std::string& folder) {
  std::vector<std::string> found;
  DIR* dir = ::opendir(folder.c_str());
  if (dir == nullptr) return found;
  const std::string suffix = ".safetensors";
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      found.push_back(name);
  }
  ::closedir(dir);
  std::sort(found.begin(), found.end());
  return found;
}

// A shard is named relative to the index's folder and must stay in it: no directories, no
// way out, no NUL (JSON can spell one; the OS would cut the name there).
bool plain_file_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

// weight_map: tensor name -> shard file name, checked.
std::map<std::string, std::string> read_weight_map(const std::string& index_path) {
  const std::string what = "safetensors index '" + index_path + "'";
  const MappedFile file(index_path, "safetensors index");
  if (file.size() > kMaxIndexBytes)
    throw UsageError(what + ": is " + std::to_string(file.size()) + " bytes: expected at most " +
                     std::to_string(kMaxIndexBytes));
  const std::string_view text(reinterpret_cast<const char*>(file.data()), file.size());
  const json root = parse_strict_json(text, 16, what);
  const auto map = root.is_object() ? root.find("weight_map") : root.end();
  if (!root.is_object() || map == root.end() || !map->is_object() || map->empty())
    throw UsageError(what + ": has no \"weight_map\" object of tensor names to shard files: expected one with at "
                            "least one tensor");
  std::map<std::string, std::string> shards;
  for (const auto& [name, shard] : map->items()) {
    if (!shard.is_string() || !plain_file_name(shard.get_ref<const std::string&>()))
      throw UsageError(what + ": weight_map gives tensor " + excerpt(name) + " the shard " + json_excerpt(shard) +
                       ": expected the name of a file in the index's folder (no '/', not '..')");
    shards.emplace(name, shard.get<std::string>());
  }
  return shards;
}

}  // namespace

std::optional<SafetensorsWeights> SafetensorsWeights::open(const std::string& folder) {
  const std::string single = folder + "/" + kSingleFile;
  const std::string index = folder + "/" + kIndexFile;
  if (exists(single)) {
    SafetensorsWeights weights(folder, single);
    weights.files_.emplace_back(single);
    for (const auto& entry : weights.files_.back().entries()) weights.where_.emplace(entry.name, 0);
    return weights;
  }
  refuse_dangling_link(single);
  if (exists(index)) return open_index(folder, index);
  refuse_dangling_link(index);
  if (const auto shards = safetensors_files_in(folder); !shards.empty()) {
    std::string listed;
    for (std::size_t i = 0; i < shards.size() && i < 3; ++i) listed += (i ? ", " : "") + shards[i];
    throw UsageError("model folder '" + folder + "' holds " + std::to_string(shards.size()) + " safetensors file(s) (" +
                     listed + (shards.size() > 3 ? ", ..." : "") + ") but neither " + kSingleFile + " nor " + kIndexFile +
                     ": expected the index that maps tensors to those shards (lost in a copy?), or --weights random to "
                     "train from random init");
  }
  return std::nullopt;
}

SafetensorsWeights SafetensorsWeights::open_index(const std::string& folder, const std::string& index_path) {
  const std::map<std::string, std::string> weight_map = read_weight_map(index_path);
  const std::string index_what = "safetensors index '" + index_path + "'";
  SafetensorsWeights weights(folder, index_path);
  std::map<std::string, std::size_t> shard_index;  // shard file name -> index into files_
  for (const auto& [name, shard] : weight_map) {
    if (shard_index.count(shard)) continue;
    const std::string path = folder + "/" + shard;
    if (!exists(path))
      throw UsageError(index_what + " maps tensor " + excerpt(name) + " to shard '" + path +
                       "', which does not exist: expected every shard the index names in its folder");
    shard_index.emplace(shard, weights.files_.size());
    weights.files_.emplace_back(path);  // checks the shard itself
  }
  for (const auto& [name, shard] : weight_map) {
    const std::size_t file = shard_index.at(shard);
    if (weights.files_[file].find(name) == nullptr)
      throw UsageError(index_what + " maps tensor " + excerpt(name) + " to shard '" + weights.files_[file].path() +
                       "', which has no tensor of that name: expected the index and its shards to agree");
    weights.where_.emplace(name, file);
  }
  // The other direction: a shard holding a tensor the index gives elsewhere, or not at all,
  // would be read by one loader and not another.
  for (const auto& [shard, file] : shard_index) {
    for (const auto& entry : weights.files_[file].entries()) {
      const auto listed = weight_map.find(entry.name);
      if (listed == weight_map.end())
        throw UsageError("safetensors shard '" + weights.files_[file].path() + "' holds tensor " + excerpt(entry.name) +
                         ", which " + index_what + " does not list: expected the index and its shards to agree");
      if (listed->second != shard)
        throw UsageError("safetensors shard '" + weights.files_[file].path() + "' holds tensor " + excerpt(entry.name) +
                         ", which " + index_what + " maps to shard '" + listed->second +
                         "': expected the index and its shards to agree");
    }
  }
  return weights;
}

std::vector<std::string> SafetensorsWeights::names() const {
  std::vector<std::string> names;
  for (const auto& [name, file] : where_) names.push_back(name);
  return names;
}

torch::Tensor SafetensorsWeights::tensor(const std::string& name) const { return file_of(name).tensor(name); }

bool SafetensorsWeights::same_values(const std::string& a, const std::string& b) const {
  const SafetensorsEntry &first = entry(a), &second = entry(b);
  if (first.shape != second.shape) return false;
  if (first.dtype != second.dtype) return torch::equal(tensor(a), tensor(b));
  constexpr std::size_t kChunk = 4u << 20;
  std::vector<char> left(kChunk), right(kChunk);
  const std::uint64_t bytes = first.end - first.begin;
  for (std::uint64_t at = 0; at < bytes; at += kChunk) {
    const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, bytes - at));
    file_of(a).stored_bytes(first, at, count, left.data());
    file_of(b).stored_bytes(second, at, count, right.data());
    if (std::memcmp(left.data(), right.data(), count) != 0) return false;
  }
  return true;
}

const SafetensorsFile& SafetensorsWeights::file_of(const std::string& name) const {
  const auto it = where_.find(name);
  if (it == where_.end())
    throw UsageError("model weights '" + listing_ + "' have no tensor " + excerpt(name) + " (they hold " +
                     std::to_string(where_.size()) + ")");
  return files_[it->second];
}

}  // namespace gpubench
