// The per-rank trace in the shape Holistic Trace Analysis reads (its loading by HTA itself is
// tests/harness/profile/hta_reads_gpubench_traces.py).
#include "harness/profile/kineto_trace.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/file_text.h"
#include "support/run_command.h"

namespace gpubench {
namespace {

TraceSpanSet sample_set() {
  TraceSpanSet set;
  set.config_id = "mlp/cuda/fp32/pinned/ddp-2";
  set.rank = 1;
  set.spans = {{"mlp/cuda/fp32/pinned/ddp-2", "run", 100, 50, 0, {{"rank", 1}}},
               {"step 3", "step", 110, 20, 0, {{"step", 3}}},
               {"backward", "phase", 112, 9, 0, {{"step", 3}}},
               {"sgemm_128x64", "device", 113, 4, kFirstDeviceTrackTid, {{"device", 0}, {"stream", 7}, {"correlation_id", 41}}},
               {"memcpy HtoD", "device", 111, 1, kFirstDeviceTrackTid + 1,
                {{"device", 0}, {"stream", 13}, {"bytes", 4096}, {"pinned_host", true}, {"correlation_id", 40}}},
               {"memset", "device", 118, 0.5, kFirstDeviceTrackTid, {{"device", 0}, {"stream", 7}}}};
  return set;
}

const nlohmann::json* find_event(const nlohmann::json& trace, const std::string& name) {
  for (const auto& event : trace["traceEvents"])
    if (event["name"] == name && event["ph"] == "X") return &event;
  return nullptr;
}

TEST(KinetoTrace, HostSpansAreUserAnnotationsOnTheRanksProcess) {
  const nlohmann::json trace = kineto_trace_json(sample_set(), {1, 2, "nccl", 4242});
  EXPECT_EQ(trace["distributedInfo"], (nlohmann::json{{"backend", "nccl"}, {"rank", 1}, {"world_size", 2}}));
  const auto* backward = find_event(trace, "backward");
  ASSERT_NE(backward, nullptr);
  EXPECT_EQ((*backward)["cat"], "user_annotation");
  EXPECT_EQ((*backward)["pid"], 4242);
  EXPECT_EQ((*backward)["tid"], 1) << "never 0: HTA reads tid 0 as a GPU";
  EXPECT_EQ((*backward)["args"]["gpubench_category"], "phase");
  EXPECT_FALSE((*backward)["args"].contains("stream")) << "HTA counts any event with a stream as GPU activity";
}

TEST(KinetoTrace, DeviceSpansAreKinetosKernelsCopiesAndMemsets) {
  const nlohmann::json trace = kineto_trace_json(sample_set(), {1, 2, "nccl", 4242});
  const auto* kernel = find_event(trace, "sgemm_128x64");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ((*kernel)["cat"], "kernel");
  EXPECT_EQ((*kernel)["pid"], 0);
  EXPECT_EQ((*kernel)["tid"], 7);
  EXPECT_EQ((*kernel)["args"]["stream"], 7);
  EXPECT_EQ((*kernel)["args"]["correlation"], 41);
  const auto* copy = find_event(trace, "Memcpy HtoD (Pinned -> Device)");
  ASSERT_NE(copy, nullptr) << trace.dump();
  EXPECT_EQ((*copy)["cat"], "gpu_memcpy");
  EXPECT_EQ((*copy)["args"]["bytes"], 4096);
  const auto* memset = find_event(trace, "Memset (Device)");
  ASSERT_NE(memset, nullptr);
  EXPECT_EQ((*memset)["cat"], "gpu_memset");
}

// HTA takes the rank from the first `"rank":\s+(\d+)` in the file: distributedInfo's, written
// with a blank after the colon and ahead of the events (whose args may hold other ranks).
TEST(KinetoTrace, WrittenOnePerConfigAndRankWithTheRankHtaLooksFor) {
  const std::string dir = test_support::make_temp_dir("kineto");
  write_kineto_trace(dir, sample_set(), {1, 2, "nccl", 4242});
  const std::string path = kineto_trace_path(dir, "mlp/cuda/fp32/pinned/ddp-2", 1);
  EXPECT_EQ(path, dir + "/mlp_cuda_fp32_pinned_ddp-2/rank-1.json");
  const std::string content = test_support::file_text(path);
  const auto rank_at = content.find("\"rank\": ");
  ASSERT_NE(rank_at, std::string::npos) << content.substr(0, 400);
  EXPECT_EQ(content.substr(rank_at, 9), "\"rank\": 1");
  EXPECT_LT(rank_at, content.find("\"traceEvents\""));
  EXPECT_EQ(nlohmann::json::parse(content)["otherData"]["config_id"], "mlp/cuda/fp32/pinned/ddp-2");
}

}  // namespace
}  // namespace gpubench
