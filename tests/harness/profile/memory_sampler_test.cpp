#include "harness/profile/memory_sampler.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gpubench {
namespace {

void drive(Probe& probe, int warmup, int measured) {
  probe.run_begin("mlp/cpu/fp32/pageable");
  for (int step = 0; step < warmup + measured; ++step) {
    probe.step_begin(step, step >= warmup);
    for (Phase phase : kAllPhases) {
      probe.phase_begin(phase);
      probe.phase_end(phase);
    }
    probe.step_end(step, step >= warmup);
  }
  probe.run_end();
}

TEST(MemorySampler, SamplesHostRssAtEveryStepEnd) {
  MemorySampler sampler;
  drive(sampler, 2, 3);
  nlohmann::json result = nlohmann::json::object();
  sampler.write_result(result);
  const auto& memory = result.at("memory");
  ASSERT_EQ(memory.at("rss_bytes_per_step").size(), 5u);
  for (const auto& rss : memory["rss_bytes_per_step"]) EXPECT_GT(rss.get<std::uint64_t>(), 0u);
  EXPECT_EQ(memory.at("step_per_sample"), nlohmann::json({0, 1, 2, 3, 4}));
  EXPECT_EQ(memory.at("measured_per_sample"), nlohmann::json({false, false, true, true, true}));
  EXPECT_GT(memory.at("rss_bytes_at_run_begin").get<std::uint64_t>(), 0u);
  // The process peak is at least every sample we took.
  EXPECT_GE(memory.at("host_peak_rss_bytes").get<std::uint64_t>(),
            memory.at("rss_bytes_max_sampled").get<std::uint64_t>());
  EXPECT_FALSE(memory.contains("device_per_step"));
}

TEST(MemorySampler, MergesIntoAnExistingMemorySection) {
  MemorySampler sampler;
  drive(sampler, 0, 1);
  nlohmann::json result = {{"memory", {{"device_peak_allocated_bytes", 1234}}}, {"status", "ok"}};
  sampler.write_result(result);
  EXPECT_EQ(result["memory"]["device_peak_allocated_bytes"], 1234);
  EXPECT_EQ(result["memory"]["rss_bytes_per_step"].size(), 1u);
  EXPECT_EQ(result["status"], "ok");
}

TEST(MemorySampler, RecordsTheDeviceCallbackPerStep) {
  int calls = 0;
  MemorySampler sampler([&calls] { return nlohmann::json{{"allocated_bytes", 100 * ++calls}}; });
  drive(sampler, 1, 2);
  nlohmann::json result;
  sampler.write_result(result);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(result["memory"]["device_per_step"],
            nlohmann::json::parse(R"([{"allocated_bytes":100},{"allocated_bytes":200},{"allocated_bytes":300}])"));
}

TEST(MemorySampler, ACallbackThatThrowsIsRecordedNotPropagated) {
  MemorySampler sampler([]() -> nlohmann::json { throw std::runtime_error("no CUDA device"); });
  EXPECT_NO_THROW(drive(sampler, 0, 2));
  nlohmann::json result;
  sampler.write_result(result);
  ASSERT_EQ(result["memory"]["device_per_step"].size(), 2u);
  EXPECT_EQ(result["memory"]["device_per_step"][0]["error"], "no CUDA device");
}

TEST(MemorySampler, SeesRssGrowWhenMemoryIsTouched) {
  MemorySampler sampler;
  sampler.run_begin("x");
  sampler.step_end(0, true);
  std::vector<char> block(64u << 20, 1);  // 64 MiB, written so the pages are resident
  sampler.step_end(1, true);
  const auto& rss = sampler.rss_bytes_per_step();
  ASSERT_EQ(rss.size(), 2u);
  EXPECT_GE(rss[1], rss[0] + (48u << 20)) << "block[7]=" << int(block[7]);
}

}  // namespace
}  // namespace gpubench
