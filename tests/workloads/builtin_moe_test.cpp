// The built-in moe workload (workloads/builtin_moe.cpp): its shape as transformers 5.17 counts
// a Qwen3MoeForCausalLM of that config, what it offers the techniques, and its GPU default
// within an 80 GB GPU. (It is built by the qwen3_moe reader that FamilyEquality proves equal to
// transformers on a tiny config; its CPU rows need more memory than this machine's.)
#include <gtest/gtest.h>

#include "core/config/config.h"
#include "workloads/decoder_lm.h"

namespace gpubench {
namespace {

TEST(MoeWorkload, HasTheShapeTransformersCountsAndItsActiveParameters) {
  const auto workload = make_moe_workload(std::nullopt);
  const nlohmann::json described = workload->describe();
  const WorkloadTraits traits = workload->traits();
  EXPECT_EQ(traits.experts, 64);
  EXPECT_TRUE(traits.units && traits.segments && traits.real_scale);
  EXPECT_TRUE(traits.loss_from_output) << "no load-balancing loss: ckpt and dp stay open";
  EXPECT_FALSE(traits.capturable) << "the experts' loop reads each one's token count on the host";
  // FLOPs count the active parameters less the untied embedding only looked up: 505,187,328
  // active (transformers' count with 8 of 64 experts) - 151936 x 1024.
  EXPECT_GT(workload->forward_macs_per_sample(), std::int64_t{2048} * (505187328 - 151936 * 1024));
  EXPECT_LT(workload->forward_macs_per_sample(), std::int64_t{2048} * (505187328 - 151936 * 1024) * 2);
  EXPECT_FALSE(described.empty());
}

TEST(MoeWorkload, ItsGpuDefaultFitsAnEightyGigabyteGpuAndEpTakesItsShareOfTheExperts) {
  const auto workload = make_moe_workload(std::nullopt);
  const std::int64_t batch = workload->default_batch_size(DeviceKind::Cuda);
  const auto single = workload->memory_estimate(Config::parse("moe/cuda/amp-bf16"), batch);
  ASSERT_TRUE(single);
  // sum(p.numel()) of Qwen3MoeForCausalLM(that config) on the meta device (transformers 5.17).
  EXPECT_NEAR(single->states, 16.0 * 1562151936, 1);
  EXPECT_LT(single->device_total(), 0.9 * 80 * 1073741824.0) << single->to_json().dump(1);
  // fsdp-8/ep-8: the dense part's 16 bytes over 8 ranks, each rank's 8 of the 64 experts whole.
  const auto ep = workload->memory_estimate(Config::parse("moe/cuda/amp-bf16/fsdp-8/ep-8"), batch);
  ASSERT_TRUE(ep);
  const double experts = 16.0 * 64 * 3 * 1024 * 384;  // every layer's: 1,207,959,552 (transformers' count)
  EXPECT_NEAR(ep->states, 16.0 * (1562151936 - experts) / 8 + 16.0 * experts / 8, 1e3) << ep->to_json().dump(1);
}

}  // namespace
}  // namespace gpubench
