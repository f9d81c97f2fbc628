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
    // tests of their own below.
    if (rule.scope != RuleScope::Id) continue;
    EXPECT_TRUE(rules_used.count(rule.technique + "+" + rule.other))
        << rule.technique << " with " << rule.other << " refuses no pair: a rule nothing reaches";
  }
  // Pinned so that a rule added or dropped is a visible decision.
  EXPECT_EQ(legal[DeviceKind::Cpu], 41) << "bf16 x 10 techniques + 31 technique pairs";
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
