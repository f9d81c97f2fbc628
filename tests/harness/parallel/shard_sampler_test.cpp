#include "harness/parallel/shard_sampler.h"

#include <gtest/gtest.h>

#include <set>

namespace gpubench {
namespace {

std::vector<std::size_t> epoch_indices(DistributedShardSampler& sampler) {
  sampler.reset();
  std::vector<std::size_t> all;
  while (auto batch = sampler.next(7)) all.insert(all.end(), batch->begin(), batch->end());
  return all;
}

TEST(ShardSampler, RanksGetDisjointShardsThatCoverTheDataset) {
  DistributedShardSampler rank0(100, {0, 2, 9}), rank1(100, {1, 2, 9});
  const auto a = epoch_indices(rank0), b = epoch_indices(rank1);
  EXPECT_EQ(a.size(), 50u);
  EXPECT_EQ(b.size(), 50u);
  std::set<std::size_t> all(a.begin(), a.end());
  for (auto i : b) EXPECT_TRUE(all.insert(i).second) << i << " is in both shards";
  EXPECT_EQ(all.size(), 100u);
}

TEST(ShardSampler, ReshufflesEachEpochTheSameWayOnEveryRun) {
  DistributedShardSampler first(64, {0, 2, 3}), again(64, {0, 2, 3});
  const auto epoch0 = epoch_indices(first), epoch1 = epoch_indices(first);
  EXPECT_NE(epoch0, epoch1) << "a new permutation per epoch";
  EXPECT_EQ(first.epoch(), 1);
  EXPECT_EQ(epoch_indices(again), epoch0) << "seed + epoch decides the order";
}

TEST(ShardSampler, OneProcessWithBatchBSeesWhatTwoRanksWithBatchHalfSee) {
  DistributedShardSampler single(64, {0, 1, 5}), rank0(64, {0, 2, 5}), rank1(64, {1, 2, 5});
  single.reset();
  rank0.reset();
  rank1.reset();
  for (int step = 0; step < 4; ++step) {
    const auto whole = *single.next(16);
    auto half = *rank0.next(8);
    const auto other = *rank1.next(8);
    half.insert(half.end(), other.begin(), other.end());
    EXPECT_EQ(std::set<std::size_t>(whole.begin(), whole.end()), std::set<std::size_t>(half.begin(), half.end()))
        << "step " << step;
  }
}

TEST(ShardSampler, PadsAnUnevenDatasetByRepeatingItsStart) {
  DistributedShardSampler rank2(10, {2, 3, 1});
  EXPECT_EQ(rank2.shard_size(), 4u);
  EXPECT_EQ(epoch_indices(rank2).size(), 4u);
  EXPECT_THROW(DistributedShardSampler(10, {3, 3, 1}), std::invalid_argument);
}

}  // namespace
}  // namespace gpubench
