#pragma once
#include <cstdint>
#include <vector>

#include <torch/torch.h>

namespace gpubench {

// One rank's share of the dataset.
struct DataShard {
  int rank = 0;
  int world_size = 1;
  std::uint64_t seed = 0;
};

// PyTorch's DistributedSampler(shuffle=True, drop_last=False) for the C++ DataLoader:
// every epoch, one permutation of the whole dataset drawn from a generator seeded with
// seed + epoch -- the same on every rank -- padded by repeating its start to a multiple
// of the world size, and rank r takes positions r, r + W, r + 2W, ...: disjoint shards
// that together cover the dataset, reshuffled each epoch. torch::data's own
// DistributedRandomSampler instead shuffles inside a fixed contiguous shard.
// With world_size 1 it is a seeded random sampler: one process with batch B sees, step
// for step, the union of what W ranks with batch B/W see (the DDP parity test uses that).
// Each reset() (the DataLoader calls it when an epoch begins) starts the next epoch.
class DistributedShardSampler final : public torch::data::samplers::Sampler<> {
 public:
  DistributedShardSampler(std::size_t dataset_size, DataShard shard);

  void reset(torch::optional<std::size_t> new_size = torch::nullopt) override;
  torch::optional<std::vector<std::size_t>> next(std::size_t batch_size) override;
  void save(torch::serialize::OutputArchive& archive) const override;
  void load(torch::serialize::InputArchive& archive) override;

  std::int64_t epoch() const { return epoch_; }
  std::size_t shard_size() const;  // ceil(dataset_size / world_size)

 private:
  std::size_t size_;
  DataShard shard_;
  std::int64_t epoch_ = -1;  // the first reset() starts epoch 0
  std::vector<std::size_t> indices_;
  std::size_t position_ = 0;
};

}  // namespace gpubench
