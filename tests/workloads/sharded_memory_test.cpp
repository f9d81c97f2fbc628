// The model-state part of each mode's per-rank estimate against the ZeRO paper's formulas
// (Rajbhandari et al. 2020, section 5): (P + G + K)Ψ for DDP, (P + G + K/N)Ψ for stage 1,
// (P + (G + K)/N)Ψ for stage 2, (P + G + K)Ψ/N for stage 3, with gpubench's fp32
// parameters (P = G = 4 bytes) and Adam's two moments (K = 8). Its 7.5B-parameter, 64-GPU
// example: 120 GB a GPU for DDP and 1.88 GB for stage 3, whatever the byte split.
#include "workloads/sharded_memory.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace gpubench {
namespace {

constexpr double kPsi = 7.5e9;

MemoryEstimate one_process() {
  MemoryEstimate single;
  single.states = 16 * kPsi;
  single.activations = 1e9;
  return single;
}

MemoryEstimate rank_of(const std::string& id) {
  return per_rank_estimate(one_process(), Config::parse(id), {static_cast<std::int64_t>(kPsi), 200'000'000, 500'000'000});
}

TEST(ShardedMemory, ModelStatesFollowTheZeroPaper) {
  const double n = 64;
  EXPECT_DOUBLE_EQ(rank_of("x/cuda/amp-bf16/ddp-64").states, (4 + 4 + 8) * kPsi);
  EXPECT_NEAR(rank_of("x/cuda/amp-bf16/ddp-64").states / 1e9, 120, 1e-9);
  // Stage 1, plus the gradient shard its reduce-scatter writes (4 bytes a parameter / N).
  EXPECT_DOUBLE_EQ(rank_of("x/cuda/amp-bf16/zero1-64").states, (4 + 4 + 8 / n) * kPsi + 4 * kPsi / n);
  EXPECT_DOUBLE_EQ(rank_of("x/cuda/amp-bf16/zero2-64").states, (4 + (4 + 8) / n) * kPsi);
  EXPECT_DOUBLE_EQ(rank_of("x/cuda/amp-bf16/fsdp-64").states, (4 + 4 + 8) * kPsi / n);
  EXPECT_NEAR(rank_of("x/cuda/amp-bf16/fsdp-64").states / 1e9, 1.875, 1e-9);
}

TEST(ShardedMemory, EachModeAddsWhatItsReductionsAndGathersHold) {
  EXPECT_DOUBLE_EQ(rank_of("x/cuda/fp32/ddp-8").buffers, 4 * kPsi) << "DDP's buckets: a flat copy of every gradient";
  const double layer = 4 * 200'000'000.0, root = 4 * 500'000'000.0;  // the root, larger than a layer here
  // Three reduce-scatter inputs at once, consecutive in the reduce order (layers in
  // reverse, then the root): two layers and the root at most.
  const double inputs = 2 * layer + root;
  EXPECT_DOUBLE_EQ(rank_of("x/cuda/fp32/zero1-8").buffers, inputs);
  // zero2 and fsdp: the root's whole gradients through backward, a layer's while copied.
  EXPECT_DOUBLE_EQ(rank_of("x/cuda/fp32/zero2-8").buffers, inputs + root + layer);
  const MemoryEstimate fsdp = rank_of("x/cuda/fp32/fsdp-8");
  EXPECT_DOUBLE_EQ(fsdp.gathered, 4 * (500'000'000.0 + 2 * 200'000'000.0));
  EXPECT_DOUBLE_EQ(fsdp.buffers, inputs + root + layer);
  EXPECT_DOUBLE_EQ(fsdp.activations, 1e9) << "a micro-batch's activations, as one process's";
  EXPECT_DOUBLE_EQ(fsdp.training_total(), fsdp.states + fsdp.activations + fsdp.gathered + fsdp.buffers);
  // The round trip gathers the whole state to rank 0 first: the moments, and fsdp's parameters.
  EXPECT_DOUBLE_EQ(fsdp.checkpoint, 12 * kPsi);
  EXPECT_DOUBLE_EQ(rank_of("x/cuda/fp32/zero2-8").checkpoint, 8 * kPsi);
  EXPECT_DOUBLE_EQ(rank_of("x/cuda/fp32/ddp-8").checkpoint, 0) << "a replica saves itself";
  const MemoryEstimate single = rank_of("x/cuda/fp32");
  EXPECT_DOUBLE_EQ(single.states, 16 * kPsi) << "one process: unchanged";
  EXPECT_DOUBLE_EQ(single.buffers + single.gathered, 0);
}

// What ShardedDataParallel holds at its peak in backward, when layers outweigh the root
// (the estimate once counted two inputs and, for fsdp, no layer's whole gradients: two
// layers low): the third input is allocated before the oldest reduce-scatter is waited,
// beside the layer's gradients being copied into it and the root's. With accK each
// reduction also writes an output (1/N of its unit) beside the accumulated shard gradient.
TEST(ShardedMemory, TheReductionsHoldThreeInputsAndTheGradientsBeingCopied) {
  const UnitSizes deep{static_cast<std::int64_t>(kPsi), 300'000'000, 100'000'000};
  const double layer = 4 * 300'000'000.0, root = 4 * 100'000'000.0;
  for (const std::string mode : {"zero2", "fsdp"}) {
    const MemoryEstimate rank = per_rank_estimate(one_process(), Config::parse("x/cuda/fp32/" + mode + "-4"), deep);
    EXPECT_DOUBLE_EQ(rank.buffers, 3 * layer + layer + root) << mode;
    const MemoryEstimate accumulating =
        per_rank_estimate(one_process(), Config::parse("x/cuda/fp32/" + mode + "-4/acc4"), deep);
    EXPECT_DOUBLE_EQ(accumulating.buffers - rank.buffers, 3 * layer / 4) << mode << ": three outputs of a layer's 1/N";
  }
  const MemoryEstimate zero1 = per_rank_estimate(one_process(), Config::parse("x/cuda/fp32/zero1-4/acc4"), deep);
  EXPECT_DOUBLE_EQ(zero1.buffers, 3 * layer) << "zero1 reduces once a step: nothing accumulates beside an output";
}

// zero1-N and zero2-N (and every CPU rank) build the whole unsharded fp32 model where they
// train before they shard it; a GPU rank of fsdp-N builds it on the host and its device then
// holds a unit at a time (issue 55, finding 8). A 20B model's fsdp-8 trains in ~2.5 bytes a
// parameter a rank (~50 GB): built on each GPU it started at 80 GB and more; now its start is
// a unit's, and the host holds the 80 GB a rank instead.
TEST(ShardedMemory, AShardedRankFirstHoldsTheWholeUnshardedModel) {
  const double psi = 20e9, layer = 4 * 400'000'000.0, root = 4 * 1'000'000'000.0;
  const double unit = std::max(layer, root);
  const UnitSizes large{static_cast<std::int64_t>(psi), 400'000'000, 1'000'000'000};
  const MemoryEstimate on_cpu = per_rank_estimate(one_process(), Config::parse("x/cpu/fp32/fsdp-8"), large);
  EXPECT_DOUBLE_EQ(on_cpu.startup, 4 * psi + unit * (1 + 1.0 / 8));
  EXPECT_DOUBLE_EQ(on_cpu.device_total(), on_cpu.startup) << "the larger of the start and training";
  EXPECT_DOUBLE_EQ(on_cpu.to_json()["startup_bytes"].get<double>(), on_cpu.startup);
  EXPECT_DOUBLE_EQ(on_cpu.host_model, 0) << "a CPU rank's host is its device: counted in the start";
  const MemoryEstimate fsdp = per_rank_estimate(one_process(), Config::parse("x/cuda/amp-bf16/fsdp-8"), large);
  EXPECT_DOUBLE_EQ(fsdp.startup, unit * (1 + 1.0 / 8)) << "a unit flattened from the host and its shard";
  EXPECT_DOUBLE_EQ(fsdp.device_total(), fsdp.training_total()) << "training, not the start, decides the fit";
  EXPECT_LT(fsdp.device_total(), 0.9 * 80e9);
  EXPECT_DOUBLE_EQ(fsdp.host_model, 4 * psi);
  EXPECT_DOUBLE_EQ(fsdp.to_json()["host_model_bytes"].get<double>(), 4 * psi);
  // zero2 keeps the whole model on each GPU anyway: built there, its start is the whole
  // model and a unit, and training is larger still.
  const MemoryEstimate zero2 = per_rank_estimate(one_process(), Config::parse("x/cuda/fp32/zero2-8"), large);
  EXPECT_DOUBLE_EQ(zero2.startup, 4 * psi + unit * (1 + 1.0 / 8));
  EXPECT_DOUBLE_EQ(zero2.host_model, 0);
  // ddp keeps the whole model anyway, and a single process builds nothing twice.
  EXPECT_DOUBLE_EQ(per_rank_estimate(one_process(), Config::parse("x/cuda/fp32/ddp-8"), large).startup, 0);
  EXPECT_DOUBLE_EQ(rank_of("x/cuda/fp32").startup, 0);
  EXPECT_DOUBLE_EQ(zero2.device_total(), zero2.training_total()) << "zero2 keeps the whole model: training is larger";
}

}  // namespace
}  // namespace gpubench
