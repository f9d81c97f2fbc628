#include "core/config/technique_rules.h"

#include <gtest/gtest.h>

#include <set>

#include "core/config/errors.h"
#include "support/technique_pairs.h"

namespace gpubench {
namespace {

using test_support::pair_workload_traits;
using test_support::technique_pairs;

// The rule of the table a message quotes, or "" when it quotes none.
std::string quoted_rule(const std::string& message) {
  for (const auto& rule : technique_rules()) {
    const std::string quoted = rule.scope == RuleScope::Workload ? rule.technique + " does not apply to "
                                                                 : rule.technique + " with " + rule.other + ": ";
    if (message.find(quoted) != std::string::npos && message.find(rule.why) != std::string::npos)
      return rule.technique + "+" + rule.other;
  }
  return "";
}

// Why an id is refused (parse or the workload's traits), or "" when it is legal.
std::string refusal(const test_support::TechniquePair& pair) {
  try {
    const Config config = Config::parse(pair.id);
    const auto broken = workload_rule_broken(config, pair_workload_traits().at(pair.workload));
    return broken ? *broken : "";
  } catch (const UsageError& error) {
    return error.what();
  }
}

// Every pair of techniques is either refused with a sentence of the table (no other
// if-chain decides) or legal; every rule of the table refuses some pair; the legal ones
// are what the CPU pair test (TechniquePairsRun) and the GPU one (GpuTechniquePairs) train.
TEST(TechniqueRules, EveryPairIsRefusedByARuleOfTheTableOrLegal) {
  std::set<std::string> rules_used;
  std::map<DeviceKind, int> legal;
  for (const DeviceKind device : {DeviceKind::Cpu, DeviceKind::Cuda})
    for (const auto& pair : technique_pairs(device)) {
      const std::string why = refusal(pair);
      if (why.empty()) {
        ++legal[device];
        continue;
      }
      const std::string rule = quoted_rule(why);
      EXPECT_NE(rule, "") << pair.id << " is refused with a reason that is not the table's: " << why;
      rules_used.insert(rule);
    }
  for (const auto& rule : technique_rules()) {
    // The pairs pick a workload that has what they need: Workload and Machine rules have
    // tests of their own below, and so do ep-K's (it always needs a multi-rank mode and a
    // mixture of experts, which no pair of two words on a built-in CPU workload can hold).
    if (rule.scope != RuleScope::Id || rule.technique == "ep-K") continue;
    EXPECT_TRUE(rules_used.count(rule.technique + "+" + rule.other))
        << rule.technique << " with " << rule.other << " refuses no pair: a rule nothing reaches";
  }
  // Pinned so that a rule added or dropped is a visible decision.
  EXPECT_EQ(legal[DeviceKind::Cpu], 45) << "bf16 x 10 techniques + 35 technique pairs";
  EXPECT_EQ(legal[DeviceKind::Cuda], 109);
}

TEST(TechniqueRules, WorkloadRulesNameTheWorkloadAndWhatItLacks) {
  const auto why = workload_rule_broken(Config::parse("mlp/cpu/fp32/channels-last"), WorkloadTraits{});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("channels-last does not apply to mlp"), std::string::npos) << *why;
  EXPECT_NE(why->find("no 4-d tensors"), std::string::npos) << *why;
  for (const std::string id : {"mlp/cpu/fp32/ckpt", "mlp/cuda/fp8", "mlp/cuda/fp32/channels-last"}) {
    const auto refused = workload_rule_broken(Config::parse(id), WorkloadTraits{});
    ASSERT_TRUE(refused) << id;
    EXPECT_NE(refused->find(" does not apply to mlp: "), std::string::npos) << *refused;
  }
  WorkloadTraits gpt2;
  gpt2.segments = gpt2.fp8_linears = true;
  EXPECT_FALSE(workload_rule_broken(Config::parse("gpt2/cuda/fp8/ckpt"), gpt2));
  WorkloadTraits scripted;
  scripted.cloneable = false;
  EXPECT_TRUE(workload_rule_broken(Config::parse("m/cuda/fp32/dp"), scripted));
}

// ep-K borrows its ranks from a multi-rank mode and splits a mixture of experts' experts.
TEST(TechniqueRules, ExpertParallelNeedsRanksExpertsThatSplitAndNoRecompute) {
  const auto refused = [](const std::string& id) {
    try {
      Config::parse(id);
    } catch (const UsageError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_NE(refused("m/cpu/fp32/ddp-2/ep-2/ckpt").find("ep-K with ckpt: "), std::string::npos);
  EXPECT_NE(refused("m/cuda/fp32/dp/ep-2").find("ep-K with dp: "), std::string::npos);
  EXPECT_NE(refused("m/cpu/fp32/ep-2").find("multi-rank mode"), std::string::npos);
  EXPECT_NE(refused("m/cpu/fp32/fsdp-6/ep-4").find("multiple of 4"), std::string::npos);
  EXPECT_NE(refused("m/cpu/fp32/ddp-2/ep-1").find("2..1024 ranks per expert group"), std::string::npos);
  EXPECT_NE(refused("m/cpu/fp32/ddp-2/ep-02").find("2..1024 ranks per expert group"), std::string::npos);
  const Config config = Config::parse("m/cpu/fp32/ep-2/fsdp-4/acc2");
  EXPECT_EQ(config.id(), "m/cpu/fp32/fsdp-4/ep-2/acc2");
  EXPECT_EQ(config.expert_parallel, 2);
  EXPECT_EQ(config_words(config), (std::vector<std::string>{"cpu", "fp32", "fsdp-N", "accK", "ep-K"}));
  WorkloadTraits dense;
  dense.units = true;
  const auto no_experts = workload_rule_broken(config, dense);
  ASSERT_TRUE(no_experts);
  EXPECT_NE(no_experts->find("ep-K does not apply to m: "), std::string::npos) << *no_experts;
  WorkloadTraits moe;
  moe.units = true;
  moe.experts = 6;
  const auto uneven = workload_rule_broken(Config::parse("m/cpu/fp32/ddp-4/ep-4"), moe);
  ASSERT_TRUE(uneven);
  EXPECT_NE(uneven->find("6 experts do not split over 4 ranks"), std::string::npos) << *uneven;
  EXPECT_FALSE(workload_rule_broken(config, moe));
}

// dp with autocast runs on one GPU (data_parallel runs the module itself) and is skipped on
// several (its replicas' OpenMP threads do not inherit autocast).
TEST(TechniqueRules, MachineRulesSkipOnlyOnSeveralGpus) {
  const Config config = Config::parse("mlp/cuda/amp-bf16/dp");
  EXPECT_FALSE(machine_rule_broken(config, 1));
  const auto why = machine_rule_broken(config, 4);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("do not inherit autocast"), std::string::npos) << *why;
  EXPECT_NE(why->find("4 CUDA devices"), std::string::npos) << *why;
  EXPECT_FALSE(machine_rule_broken(Config::parse("mlp/cuda/fp32/dp"), 4));
}

TEST(TechniqueRules, WordsAreWhatTheIdSpells) {
  EXPECT_EQ(config_words(Config::parse("cnn/cuda/amp-bf16/ddp-4/acc2/adam-fused/channels-last/ckpt")),
            (std::vector<std::string>{"cuda", "amp-bf16", "pinned", "ddp-N", "accK", "adam-fused", "channels-last", "ckpt"}));
  EXPECT_TRUE(is_legal(Config::parse("cnn/cuda/amp-bf16/graph")));
  Config graph_with_foreach = Config::parse("cnn/cuda/fp32/graph");
  graph_with_foreach.adam = AdamKernel::Foreach;
  EXPECT_FALSE(is_legal(graph_with_foreach));
}

TEST(TechniqueRules, DescribedOneRuleALine) {
  const std::string text = describe_rules();
  EXPECT_EQ(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')), technique_rules().size());
  EXPECT_NE(text.find("graph with ddp-N: "), std::string::npos) << text;
  EXPECT_NE(text.find("skipped on several GPUs  dp with amp-bf16"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpubench
