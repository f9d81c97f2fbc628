#include "harness/parallel/unit_shard.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace gpubench {
namespace {

// zero1 and zero2 step each rank's slice of the whole unit in place: the slice starts on a
// 16-byte boundary for every rank (the layout pads each shard), so foreach/fused Adam and
// NCCL see aligned memory. An 8-element fp32 unit over 3 ranks once gave 3-element shards:
// rank 1's began 12 bytes in.
TEST(UnitShard, EveryRanksShardStartsOn16Bytes) {
  const std::vector<torch::Tensor> parameters = {torch::arange(5, torch::kFloat32), torch::arange(3, torch::kFloat32)};
  const ShardLayout layout = plan_shard_layout(parameters, {{0, 1}}, /*world_size=*/3);
  for (int rank = 0; rank < 3; ++rank) {
    std::vector<torch::Tensor> members = {parameters[0].clone(), parameters[1].clone()};
    const UnitShard unit(layout.units[0], members, torch::kCPU, rank, 3, /*keep_whole=*/true, /*in_place_gather=*/false);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(unit.shard().data_ptr()) % 16, 0u) << "rank " << rank;
    EXPECT_EQ(unit.shard_bytes() % 16, 0) << "rank " << rank;
    // The members still hold their values, and the padding is zeros that no member views.
    EXPECT_TRUE(torch::equal(members[0], parameters[0]));
    EXPECT_TRUE(torch::equal(members[1], parameters[1]));
  }
}

}  // namespace
}  // namespace gpubench
