#include "harness/run/checkpoint_plan.h"

#include <gtest/gtest.h>

#include "harness/run/config_sizes.h"
#include "harness/run/memory_check.h"
#include "workloads/workload.h"
#include "core/io/byte_units.h"

// Which configs make the checkpoint round trip, and what a host too small for its second
// model and optimizer does: the config still measures, its round trip is left out.
namespace gpubench {
namespace {

MemoryEstimate estimate_for(const Config& config, const RunSettings& settings) {
  return *make_workload(config.workload)->memory_estimate(config, resolve_sizes(config, settings).batch_size);
}

MachineCapabilities with_host_memory(double bytes) {
  MachineCapabilities machine;
  machine.host_available_bytes = bytes;
  machine.host_available_source = "MemAvailable";
  return machine;
}

TEST(CheckpointPlan, OffAndOncePerWorkloadAreSaidInTheRow) {
  const MachineCapabilities plenty = with_host_memory(1e15);
  RunSettings off;
  off.checkpoint_policy = CheckpointPolicy::Off;
  EXPECT_EQ(checkpoint_skip_reason(Config::parse("mlp/cpu/fp32"), off, plenty, {}), "off (--checkpoint-check off)");
  // auto: a 1.2B model's round trip once per workload, gpt2's (124M) in every config.
  const RunSettings automatic;
  const std::map<std::string, std::string> checked{{"llama", "llama/cpu/fp32"}, {"gpt2", "gpt2/cpu/fp32"}};
  EXPECT_EQ(checkpoint_skip_reason(Config::parse("llama/cpu/bf16"), automatic, plenty, checked),
            "once per workload (--checkpoint-check auto): made in llama/cpu/fp32");
  EXPECT_EQ(checkpoint_skip_reason(Config::parse("llama/cpu/bf16"), automatic, plenty, {}), "");
  EXPECT_EQ(checkpoint_skip_reason(Config::parse("gpt2/cpu/bf16"), automatic, plenty, checked), "");
  RunSettings once;
  once.checkpoint_policy = CheckpointPolicy::Once;
  EXPECT_EQ(checkpoint_skip_reason(Config::parse("gpt2/cpu/bf16"), once, plenty, checked),
            "once per workload (--checkpoint-check once): made in gpt2/cpu/fp32");
}

// Training fits, the second copy does not: the config runs without the round trip (it
// was refused whole before); only when training itself does not fit is it skipped.
TEST(CheckpointPlan, ARoundTripThatWouldNotFitIsLeftOutAndTheConfigStillRuns) {
  const RunSettings settings;
  const Config config = Config::parse("gpt2/cpu/fp32");
  const MemoryEstimate estimate = estimate_for(config, settings);
  ASSERT_GT(estimate.checkpoint, 0);
  const double between = estimate.device_total() + estimate.checkpoint / 2;
  const HostMemoryFit tight = host_memory_fit(config, settings, between, "MemAvailable");
  EXPECT_FALSE(tight.refusal) << *tight.refusal;
  ASSERT_TRUE(tight.round_trip_refusal);
  const std::string reason = checkpoint_skip_reason(config, settings, with_host_memory(between), {});
  EXPECT_EQ(reason, *tight.round_trip_refusal);
  EXPECT_EQ(reason.rfind("the round trip's second model and optimizer (~", 0), 0u) << reason;
  EXPECT_NE(reason.find("GiB available (MemAvailable)"), std::string::npos) << reason;
  EXPECT_FALSE(skip_reason(config, with_host_memory(between), settings)) << "the config itself runs";

  const HostMemoryFit roomy = host_memory_fit(config, settings, estimate.host_total() + 1, "MemAvailable");
  EXPECT_FALSE(roomy.refusal || roomy.round_trip_refusal);
  EXPECT_EQ(checkpoint_skip_reason(config, settings, with_host_memory(estimate.host_total() + 1), {}), "");

  const auto too_small = skip_reason(config, with_host_memory(estimate.device_total() / 2), settings);
  ASSERT_TRUE(too_small);
  EXPECT_EQ(too_small->rfind("needs ~", 0), 0u) << *too_small;
  EXPECT_EQ(too_small->find("second"), std::string::npos) << "training alone is refused: " << *too_small;
  // Unknown host memory (0) refuses nothing.
  EXPECT_EQ(checkpoint_skip_reason(config, settings, with_host_memory(0), {}), "");
}

// DDP ranks each hold the model; only rank 0 makes the round trip.
TEST(CheckpointPlan, DdpRanksEachTrainOnlyRankZeroMakesTheSecondCopy) {
  const RunSettings settings;
  const Config config = Config::parse("gpt2/cpu/fp32/ddp-2");
  const MemoryEstimate estimate = estimate_for(config, settings);
  const double both_ranks = 2 * estimate.device_total();
  EXPECT_FALSE(host_memory_fit(config, settings, both_ranks + estimate.checkpoint + 1, "x").round_trip_refusal);
  EXPECT_TRUE(host_memory_fit(config, settings, both_ranks + estimate.checkpoint / 2, "x").round_trip_refusal);
  const auto refused = host_memory_fit(config, settings, both_ranks - kGiB / 4, "x").refusal;
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find("for each of 2 ranks"), std::string::npos) << *refused;
}

MachineCapabilities with_gpu(double bytes) {
  MachineCapabilities machine;
  machine.cuda.available = true;
  machine.cuda.device_count = 1;
  machine.cuda.devices.push_back({"an 80 GB GPU", static_cast<std::uint64_t>(bytes), 9, 0});
  return machine;
}

// On a GPU the round trip is made on the device (issue 47, finding 3): llama's second model
// and optimizer (~20 GB) and its two fp32 outputs beside a live CUDA Graph pool do not fit
// an 80 GB GPU, and nothing left it out for size. Its eager row holds only its states by
// then (the activations are cached blocks the round trip reuses), and fits.
TEST(CheckpointPlan, OnAGpuTheRoundTripIsDecidedByTheEstimateBesideAGraphsPool) {
  const RunSettings settings;
  const MachineCapabilities h100 = with_gpu(80e9);
  const std::string graph = checkpoint_skip_reason(Config::parse("llama/cuda/amp-bf16/pinned/graph"), settings, h100, {});
  EXPECT_EQ(graph.rfind("the round trip's second model, optimizer and outputs on the GPU (~", 0), 0u) << graph;
  EXPECT_NE(graph.find("the CUDA Graph's pool"), std::string::npos) << graph;
  EXPECT_NE(graph.find("90% of its 74.5 GiB"), std::string::npos) << graph;
  EXPECT_EQ(checkpoint_skip_reason(Config::parse("llama/cuda/amp-bf16/pinned"), settings, h100, {}), "");
  EXPECT_EQ(checkpoint_skip_reason(Config::parse("gpt2/cuda/amp-bf16/pinned/graph"), settings, h100, {}), "");
  // A GPU too small for the eager row's round trip, and an unknown GPU size (no device seen).
  EXPECT_NE(checkpoint_skip_reason(Config::parse("llama/cuda/amp-bf16/pinned"), settings, with_gpu(40e9), {}), "");
  EXPECT_EQ(checkpoint_skip_reason(Config::parse("llama/cuda/amp-bf16/pinned/graph"), settings, MachineCapabilities{}, {}), "");
}

}  // namespace
}  // namespace gpubench
