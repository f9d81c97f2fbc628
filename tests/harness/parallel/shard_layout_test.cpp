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
  // Unit 0 holds the first two, unit 1 the last; the third is the root's.
  const ShardLayout layout = plan_shard_layout(parameters, {{0, 1}, {3}}, /*world_size=*/3);
  ASSERT_EQ(layout.units.size(), 3u);
  EXPECT_TRUE(layout.has_root);
  EXPECT_EQ(layout.units[0].numel, 8);
  EXPECT_EQ(layout.units[0].shard_numel, 3);
  EXPECT_EQ(layout.units[0].padded_numel, 9);
  EXPECT_EQ(layout.units[0].offsets, (std::vector<std::int64_t>{0, 5}));
  EXPECT_EQ(layout.units[1].padded_numel, 3);  // 2 elements, one shard each (one padded)
  EXPECT_EQ(layout.units[2].name, "root");
  EXPECT_EQ(layout.units[2].members, (std::vector<std::size_t>{2}));
  EXPECT_EQ(layout.units[2].padded_numel, 9);
  EXPECT_EQ(layout.numel(), 17);
  EXPECT_EQ(layout.padded_numel(), 21);
  EXPECT_EQ(layout.shard_numel(), 7);
  EXPECT_EQ(layout.largest_unit_numel(), 9);
  EXPECT_EQ(layout.to_json()["padding_numel"], 4);
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
