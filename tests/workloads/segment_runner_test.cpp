// Every built-in workload declares its units of sharding as its traits say (the matrix
// and pair tests assume these traits), each unit a module the forward runs through its
// SegmentRunner, the units disjoint; and the runner calls a sharded run's hooks around
// each unit in forward order, outside ckpt's recompute.
#include "workloads/segment_runner.h"

#include <gtest/gtest.h>

#include <set>

#include "workloads/workload.h"

namespace gpubench {
namespace {

TEST(SegmentRunner, EveryBuiltInDeclaresTheUnitsItsTraitsSay) {
  const std::map<std::string, std::size_t> expected = {{"mlp", 3}, {"cnn", 3}, {"transformer", 4}, {"resnet50", 4}, {"gpt2", 12}};
  for (const auto& [name, count] : expected) {
    const auto workload = make_workload(name);
    EXPECT_TRUE(workload->traits().units) << name;
    const Model model = workload->make_model();
    EXPECT_EQ(model.units.size(), count) << name;
    EXPECT_TRUE(static_cast<bool>(model.set_unit_hooks)) << name;
    std::set<const c10::TensorImpl*> seen;
    for (const auto& unit : model.units)
      for (const auto& parameter : unit->parameters())
        EXPECT_TRUE(seen.insert(parameter.unsafeGetTensorImpl()).second) << name << ": a parameter in two units";
  }
}

// Records the hooks' calls.
class RecordingHooks final : public UnitHooks {
 public:
  void before_forward(std::size_t index) override { calls.push_back("before " + std::to_string(index)); }
  torch::Tensor after_forward(std::size_t index, const torch::Tensor& output) override {
    calls.push_back("after " + std::to_string(index));
    return output;
  }
  std::vector<std::string> calls;
};

TEST(SegmentRunner, CallsTheHooksAroundEachUnitOnceAndNotInTheRecompute) {
  const auto workload = make_workload("cnn");
  ModelTechniques techniques;
  techniques.checkpoint = true;
  Model model = workload->make_model_with(techniques);
  RecordingHooks hooks;
  model.set_unit_hooks(&hooks);
  const torch::Tensor loss = model.forward(torch::randn({2, 3, 32, 32})).sum();
  const std::vector<std::string> forward = {"before 0", "after 0", "before 1", "after 1", "before 2", "after 2"};
  EXPECT_EQ(hooks.calls, forward);
  loss.backward();  // three recomputes, none through the hooks
  EXPECT_EQ(hooks.calls, forward);
  model.set_unit_hooks(nullptr);
  (void)model.forward(torch::randn({2, 3, 32, 32}));
  EXPECT_EQ(hooks.calls, forward) << "no hooks once they are taken back";
}

}  // namespace
}  // namespace gpubench
