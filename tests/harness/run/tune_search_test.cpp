// The search of `gpubench tune` on synthetic rows: a known fastest stack and batch must be
// found, over-budget and out-of-memory candidates set aside, never a crash.
#include "harness/run/tune_search.h"

#include <gtest/gtest.h>

#include <map>

#include "core/config/stack_parts.h"

namespace gpubench {
namespace {

nlohmann::json ok_row(const Config& config, double rate, double memory) {
  nlohmann::json r = {{"config_id", config.id()}, {"status", "ok"}};
  r["throughput"]["samples_per_s"]["median"] = rate;
  r["memory"]["host_peak_rss_bytes_training"] = memory;
  r["stopping"]["median_ci95_relative"] = 0.01;
  r["steps"]["measured"] = 20;
  return r;
}

// A synthetic machine: each part multiplies throughput by its factor, a batch doubling by
// 1.3 up to 1024, past it 0.9; memory grows with the batch; past `oom_batch` it fails.
struct FakeMachine {
  std::map<std::string, double> speedups = {{"bf16", 1.8}, {"adam-fused", 1.2}, {"adam-foreach", 1.1}, {"ddp-2", 0.7}};
  std::int64_t oom_batch = 1 << 20;
  int calls = 0;
  nlohmann::json measure(const Config& config, std::int64_t batch, TuneWindow) {
    ++calls;
    if (batch > oom_batch)
      return {{"config_id", config.id()}, {"status", "failed"}, {"reason", "out of memory: tried to allocate"}};
    double rate = 1000;
    for (const auto& part : stack_parts(config)) rate *= speedups.count(part) ? speedups[part] : 1.0;
    for (std::int64_t b = 256; b < batch; b *= 2) rate *= b < 1024 ? 1.3 : 0.9;
    return ok_row(config, rate, 100.0 * static_cast<double>(batch));
  }
};

TuneOptions options() {
  TuneOptions o;
  o.workload = "mlp";
  o.device = DeviceKind::Cpu;
  o.parts = {"bf16", "adam-foreach", "adam-fused", "ddp-2"};
  o.default_batch = 256;
  o.max_batch = 4096;
  return o;
}

TEST(TuneSearch, GreedySelectionThenBatchDoublingFindsTheFastestStack) {
  FakeMachine machine;
  const TuneResult result =
      tune_search(options(), [&](const Config& c, std::int64_t b, TuneWindow w) { return machine.measure(c, b, w); });
  ASSERT_TRUE(result.winner);
  const TuneStep& winner = result.steps[*result.winner];
  EXPECT_EQ(winner.config.id(), "mlp/cpu/bf16/adam-fused");
  EXPECT_EQ(winner.batch_size, 1024) << "doubling stops where it stops paying";
  EXPECT_EQ(winner.phase, "final");
  ASSERT_TRUE(result.runner_up);
  EXPECT_GT(result.margin, 1.0);
  ASSERT_TRUE(result.margin_ci95.has_value());
  EXPECT_LT(result.margin_ci95->first, result.margin);
  EXPECT_NE(result.summary.find("mlp/cpu/bf16/adam-fused --batch-size 1024"), std::string::npos) << result.summary;
  for (const auto& step : result.steps) EXPECT_NE(step.config.id(), "mlp/cpu/bf16/adam-foreach/adam-fused");
}

TEST(TuneSearch, TheBudgetAndOutOfMemoryRowsEndTheDoublingWithoutACrash) {
  FakeMachine machine;
  machine.oom_batch = 512;
  TuneOptions o = options();
  const TuneResult oom =
      tune_search(o, [&](const Config& c, std::int64_t b, TuneWindow w) { return machine.measure(c, b, w); });
  EXPECT_EQ(oom.steps[*oom.winner].batch_size, 512);
  bool saw_oom = false;
  for (const auto& step : oom.steps) saw_oom = saw_oom || step.outcome.find("out of memory") != std::string::npos;
  EXPECT_TRUE(saw_oom);
  FakeMachine roomy;
  o.memory_budget_bytes = 100.0 * 600;  // a batch of 512 needs 51200, 1024 needs 102400
  const TuneResult budget =
      tune_search(o, [&](const Config& c, std::int64_t b, TuneWindow w) { return roomy.measure(c, b, w); });
  EXPECT_EQ(budget.steps[*budget.winner].batch_size, 512);
  bool over = false;
  for (const auto& step : budget.steps) over = over || step.outcome.rfind("over budget", 0) == 0;
  EXPECT_TRUE(over);
}

// A step that outlasts the budget stops a row after one step (a large model on a CPU): its
// noise is unknown, so nothing is "clearly faster" and the margin has no interval.
TEST(TuneSearch, RowsOfOneStepKeepNoPartAndQuoteNoInterval) {
  FakeMachine machine;
  const TuneResult result = tune_search(options(), [&](const Config& c, std::int64_t b, TuneWindow w) {
    nlohmann::json row = machine.measure(c, b, w);
    row["steps"]["measured"] = 1;
    return row;
  });
  ASSERT_TRUE(result.winner);
  for (const auto& step : result.steps) {
    if (step.phase == "greedy" && step.round > 0) {
      EXPECT_NE(step.outcome, "kept") << step.config.id();
    }
  }
  ASSERT_TRUE(result.runner_up);
  EXPECT_FALSE(result.margin_ci95.has_value());
  EXPECT_NE(result.summary.find("[spread unknown]"), std::string::npos) << result.summary;
}

TEST(TuneSearch, NothingTrainsIsAnAnswerToo) {
  TuneOptions o = options();
  o.skip_reason = [](const Config&) { return std::optional<std::string>("no CUDA device"); };
  const TuneResult result = tune_search(o, [](const Config&, std::int64_t, TuneWindow) { return nlohmann::json(); });
  EXPECT_FALSE(result.winner);
  EXPECT_EQ(result.steps.size(), 1u);
  EXPECT_EQ(result.steps[0].outcome, "skipped: no CUDA device");
}

// Every candidate trained and was over the budget: the answer says none fits, with the
// smallest peak seen, not "no candidate trained"; and the plain config over the budget is
// not doubled (a doubled batch only needs more).
TEST(TuneSearch, NoneFitsTheBudgetSaysSoWithTheSmallestPeakAndDoesNotDouble) {
  FakeMachine machine;
  TuneOptions o = options();
  o.memory_budget_bytes = 100.0 * 100;  // the plain config's batch of 256 needs 25600
  const TuneResult result =
      tune_search(o, [&](const Config& c, std::int64_t b, TuneWindow w) { return machine.measure(c, b, w); });
  EXPECT_FALSE(result.winner);
  EXPECT_EQ(machine.calls, 1) << "only the plain config: over the budget, nothing is added to it or doubled";
  for (const auto& step : result.steps) EXPECT_NE(step.phase, "batch") << step.batch_size;
  EXPECT_NE(result.summary.find("no candidate fits the memory budget of 0.00 GiB: the smallest peak seen was 0.00 GiB "
                                "(mlp/cpu/fp32 --batch-size 256)"),
            std::string::npos)
      << result.summary;
}

// SIGINT (stop_reason) during a candidate: that candidate's row is kept as it ended, no
// other is measured, and the summary says the search was stopped.
TEST(TuneSearch, AStopRequestEndsTheSearchAfterTheCandidateItStopped) {
  FakeMachine machine;
  TuneOptions o = options();
  std::string stop;
  o.stop_reason = [&] { return stop; };
  const TuneResult result = tune_search(o, [&](const Config& c, std::int64_t b, TuneWindow w) {
    if (machine.calls == 2) stop = "interrupted (SIGINT)";
    return machine.measure(c, b, w);
  });
  EXPECT_EQ(result.stopped, "interrupted (SIGINT)");
  EXPECT_FALSE(result.winner);
  EXPECT_EQ(machine.calls, 3);
  EXPECT_EQ(result.steps.size(), 3u) << "the stopped candidate is a step";
  EXPECT_NE(result.summary.find("the search was interrupted (SIGINT) after 3 measurement(s)"), std::string::npos)
      << result.summary;
}

// The ranks' memory: DDP holds a little more than one process (its buckets), the sharded
// modes less; each mode's speed a factor as the parts'.
struct ShardingMachine {
  std::map<std::string, double> speedups = {{"ddp-2", 1.7}, {"zero2-2", 1.6}, {"fsdp-2", 1.5}};
  std::map<std::string, double> memory = {{"ddp-2", 1.25}, {"zero2-2", 0.7}, {"fsdp-2", 0.5}};
  nlohmann::json measure(const Config& config, std::int64_t batch, TuneWindow) {
    double rate = 1000, held = 100.0 * static_cast<double>(batch);
    for (const auto& part : stack_parts(config)) {
      rate *= speedups.count(part) ? speedups[part] : 1.0;
      held *= memory.count(part) ? memory[part] : 1.0;
    }
    return ok_row(config, rate, held);
  }
};

TuneOptions sharding_options(double budget) {
  TuneOptions o = options();
  o.parts = {"ddp-2", "zero2-2", "fsdp-2"};
  o.traits.units = true;  // the mlp's layers: fsdp applies
  o.max_batch = 256;  // no doubling: the stack is what is tested
  o.memory_budget_bytes = budget;
  return o;
}

TEST(TuneSearch, TakesAShardedModeWhenDdpIsOverTheBudget) {
  ShardingMachine machine;
  // One process needs 25600 at batch 256, DDP 32000 a rank, zero2 17920, fsdp 12800.
  const TuneResult result = tune_search(sharding_options(30000), [&](const Config& c, std::int64_t b, TuneWindow w) {
    return machine.measure(c, b, w);
  });
  ASSERT_TRUE(result.winner);
  EXPECT_EQ(result.steps[*result.winner].config.id(), "mlp/cpu/fp32/zero2-2") << result.summary;
}

TEST(TuneSearch, AModelOverTheBudgetInOneProcessFitsShardedAndIsSearchedFromThere) {
  ShardingMachine machine;
  const TuneResult result = tune_search(sharding_options(15000), [&](const Config& c, std::int64_t b, TuneWindow w) {
    return machine.measure(c, b, w);
  });
  ASSERT_TRUE(result.winner) << result.summary;
  EXPECT_EQ(result.steps[*result.winner].config.id(), "mlp/cpu/fp32/fsdp-2") << "only fsdp's 12800 fits 15000";
  bool fitted = false;
  for (const auto& step : result.steps) fitted = fitted || step.outcome == "kept: fits where the plain config does not";
  EXPECT_TRUE(fitted);
}

}  // namespace
}  // namespace gpubench
