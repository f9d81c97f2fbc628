#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <torch/types.h>

#include "workloads/formats/safetensors_file.h"

namespace gpubench {

// A Hugging Face model's weights in its folder, as from_pretrained finds them: the single
// file model.safetensors, else the sharded form, model.safetensors.index.json, whose
// "weight_map" names the shard (a file in the same folder) of every tensor. Like HF, the
// single file wins when both are there. Every shard is opened and checked up front; the
// index and the shards must agree exactly: each listed tensor is in its shard, and each
// shard holds only the tensors the index gives it. All refusals are UsageError naming the
// files. Names are the checkpoint's own (e.g. "model.layers.0.mlp.up_proj.weight").
// Weights that are there but cannot be found are refused too, never read as "no weights":
// a model.safetensors or index that is a dangling link (a download that did not finish),
// shards (*.safetensors) without the index that maps them.
class SafetensorsWeights {
 public:
  static constexpr const char* kSingleFile = "model.safetensors";
  static constexpr const char* kIndexFile = "model.safetensors.index.json";

  // Nothing when the folder has no safetensors file at all (a config-only model: random init).
  static std::optional<SafetensorsWeights> open(const std::string& folder);

  const std::string& folder() const { return folder_; }
  // The file that lists the tensors: model.safetensors or the index, as a path.
  const std::string& listing() const { return listing_; }
  // Every tensor name, sorted.
  std::vector<std::string> names() const;
  bool contains(const std::string& name) const { return where_.count(name) != 0; }

  // The tensor as fp32 (F32, BF16 or F16 stored; SafetensorsFile::tensor).
  torch::Tensor tensor(const std::string& name) const;
  const std::string& dtype(const std::string& name) const { return entry(name).dtype; }
  const std::vector<std::int64_t>& shape(const std::string& name) const { return entry(name).shape; }
  // The path of the file that holds it.
  const std::string& source(const std::string& name) const { return file_of(name).path(); }
  // Whether two tensors hold the same values (a tied head saved beside its embedding):
  // the same dtype and bytes, compared a few MiB at a time; of two dtypes, as fp32.
  bool same_values(const std::string& a, const std::string& b) const;

 private:
  SafetensorsWeights(std::string folder, std::string listing) : folder_(std::move(folder)), listing_(std::move(listing)) {}
  static SafetensorsWeights open_index(const std::string& folder, const std::string& index_path);
  const SafetensorsFile& file_of(const std::string& name) const;
  const SafetensorsEntry& entry(const std::string& name) const { return file_of(name).entry(name); }

  std::string folder_;
  std::string listing_;
  std::vector<SafetensorsFile> files_;
  std::map<std::string, std::size_t> where_;  // tensor name -> index into files_
};

}  // namespace gpubench
