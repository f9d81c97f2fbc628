#include "harness/parallel/shard_layout.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

std::vector<torch::Tensor> tensors_of(const std::vector<std::int64_t>& numels) {
  std::vector<torch::Tensor> out;
  for (auto numel : numels) out.push_back(torch::zeros({numel}));
  return out;
}

TEST(ShardLayout, UnevenUnitsArePaddedToTheWorldSizeNeverDropped) {
  const auto parameters = tensors_of({5, 3, 7, 2});
  // Unit 0 holds the first two, unit 1 the last; the third is the root's. Over 3 ranks each
  // shard rounds up to 4 fp32 elements (16 bytes): 8 elements -> 3 a rank -> 4.
  const ShardLayout layout = plan_shard_layout(parameters, {{0, 1}, {3}}, /*world_size=*/3);
  ASSERT_EQ(layout.units.size(), 3u);
  EXPECT_TRUE(layout.has_root);
  EXPECT_EQ(layout.units[0].numel, 8);
  EXPECT_EQ(layout.units[0].shard_numel, 4);
  EXPECT_EQ(layout.units[0].padded_numel, 12);
  EXPECT_EQ(layout.units[0].offsets, (std::vector<std::int64_t>{0, 5}));
  EXPECT_EQ(layout.units[1].padded_numel, 12);  // 2 elements, one shard each, all padded to 4
  EXPECT_EQ(layout.units[2].name, "root");
  EXPECT_EQ(layout.units[2].members, (std::vector<std::size_t>{2}));
  EXPECT_EQ(layout.units[2].padded_numel, 12);
  EXPECT_EQ(layout.numel(), 17);
  EXPECT_EQ(layout.padded_numel(), 36);
  EXPECT_EQ(layout.shard_numel(), 12);
  EXPECT_EQ(layout.largest_unit_numel(), 12);
  EXPECT_EQ(layout.to_json()["padding_numel"], 19);
}

// FSDP2 pads each shard so that it starts on a 16-byte boundary: foreach and fused Adam
// take their vectorised path and NCCL copies aligned only then. So does every shard here,
// for each element size, with no more padding than that needs.
TEST(ShardLayout, EveryShardIsAMultipleOf16BytesAndNoLarger) {
  for (const auto dtype : {torch::kFloat32, torch::kFloat16, torch::kFloat64, torch::kUInt8})
    for (const int world : {1, 2, 3, 5, 8})
      for (const std::int64_t numel : {1, 5, 1000, 1023, 803840}) {
        const ShardLayout layout = plan_shard_layout({torch::zeros({numel}, dtype)}, {{0}}, world);
        const FlatUnit& unit = layout.units.at(0);
        const std::int64_t align = 16 / unit.element_bytes;
        SCOPED_TRACE(std::string(c10::toString(dtype)) + " world " + std::to_string(world) + " numel " + std::to_string(numel));
        EXPECT_EQ(unit.shard_numel * unit.element_bytes % kShardAlignBytes, 0);
        EXPECT_EQ(unit.padded_numel, unit.shard_numel * world);
        EXPECT_GE(unit.padded_numel, numel);
        EXPECT_LT((unit.shard_numel - align) * world, numel) << "one alignment step less would not hold the unit";
      }
}

TEST(ShardLayout, AModelWithoutUnitsIsOneRootUnit) {
  const ShardLayout layout = plan_shard_layout(tensors_of({4, 4}), {}, 2);
  ASSERT_EQ(layout.units.size(), 1u);
  EXPECT_EQ(layout.units[0].name, "root");
  EXPECT_EQ(layout.units[0].shard_numel, 4);
}

TEST(ShardLayout, UnitsAreFoundByTheirModulesAndMayNotOverlap) {
  auto model = std::make_shared<torch::nn::Module>();
  auto first = model->register_module("first", torch::nn::Linear(3, 4));
  auto second = model->register_module("second", torch::nn::Linear(4, 2));
  const auto parameters = model->parameters();
  const auto members = unit_members(parameters, {second});
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(members[0], (std::vector<std::size_t>{2, 3}));  // second's weight and bias
  EXPECT_THROW(unit_members(parameters, {model, first}), std::invalid_argument);
  EXPECT_THROW(plan_shard_layout(parameters, {}, 0), std::invalid_argument);
}

}  // namespace
}  // namespace gpubench
