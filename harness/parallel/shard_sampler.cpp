#include "harness/parallel/shard_sampler.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpubench {

DistributedShardSampler::DistributedShardSampler(std::size_t dataset_size, DataShard shard)
    : size_(dataset_size), shard_(shard) {
  if (shard_.world_size < 1 || shard_.rank < 0 || shard_.rank >= shard_.world_size)
    throw std::invalid_argument("data shard: rank " + std::to_string(shard_.rank) + " is outside world size " +
                                std::to_string(shard_.world_size));
}

std::size_t DistributedShardSampler::shard_size() const {
  const auto world = static_cast<std::size_t>(shard_.world_size);
  return (size_ + world - 1) / world;
}

void DistributedShardSampler::reset(torch::optional<std::size_t> new_size) {
  if (new_size) size_ = *new_size;
  ++epoch_;
  auto generator = at::make_generator<at::CPUGeneratorImpl>(shard_.seed + static_cast<std::uint64_t>(epoch_));
  const torch::Tensor permutation = torch::randperm(static_cast<std::int64_t>(size_), generator, torch::kLong);
  const std::int64_t* order = permutation.data_ptr<std::int64_t>();
  const auto world = static_cast<std::size_t>(shard_.world_size);
  const std::size_t total = shard_size() * world;
  indices_.clear();
  indices_.reserve(shard_size());
  for (std::size_t position = static_cast<std::size_t>(shard_.rank); position < total; position += world)
    indices_.push_back(static_cast<std::size_t>(order[position % size_]));  // padding repeats the start
  position_ = 0;
}

torch::optional<std::vector<std::size_t>> DistributedShardSampler::next(std::size_t batch_size) {
  if (position_ >= indices_.size()) return torch::nullopt;
  const std::size_t end = std::min(indices_.size(), position_ + batch_size);
  std::vector<std::size_t> batch(indices_.begin() + static_cast<std::ptrdiff_t>(position_),
                                 indices_.begin() + static_cast<std::ptrdiff_t>(end));
  position_ = end;
  return batch;
}

void DistributedShardSampler::save(torch::serialize::OutputArchive& archive) const {
  archive.write("epoch", torch::tensor(epoch_), /*is_buffer=*/true);
  archive.write("position", torch::tensor(static_cast<std::int64_t>(position_)), /*is_buffer=*/true);
}

void DistributedShardSampler::load(torch::serialize::InputArchive& archive) {
  torch::Tensor epoch, position;
  archive.read("epoch", epoch, /*is_buffer=*/true);
  archive.read("position", position, /*is_buffer=*/true);
  epoch_ = epoch.item<std::int64_t>() - 1;
  reset();  // rebuilds that epoch's shard
  position_ = static_cast<std::size_t>(position.item<std::int64_t>());
}

}  // namespace gpubench
