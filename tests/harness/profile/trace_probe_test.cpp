#include "harness/profile/trace_probe.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "support/report_json.h"

namespace gpubench {
namespace {

void drive(Probe& probe, const std::string& config_id, int warmup, int measured) {
  probe.run_begin(config_id);
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

using test_support::read_json;  // throws if the file is not valid JSON

std::vector<nlohmann::json> events_with(const nlohmann::json& trace, const std::string& ph,
                                        const std::string& cat = "") {
  std::vector<nlohmann::json> out;
  for (const auto& e : trace.at("traceEvents"))
    if (e.at("ph") == ph && (cat.empty() || e.value("cat", "") == cat)) out.push_back(e);
  return out;
}

// `child` lies within `parent` on the same process and thread.
::testing::AssertionResult nested(const nlohmann::json& child, const nlohmann::json& parent) {
  const double cs = child["ts"], ce = cs + child["dur"].get<double>();
  const double ps = parent["ts"], pe = ps + parent["dur"].get<double>();
  if (child["pid"] != parent["pid"] || child["tid"] != parent["tid"])
    return ::testing::AssertionFailure() << child["name"] << " is on another track than " << parent["name"];
  if (cs < ps || ce > pe + 1e-3)
    return ::testing::AssertionFailure() << child["name"] << " [" << cs << ", " << ce << "] is outside "
                                         << parent["name"] << " [" << ps << ", " << pe << "]";
  return ::testing::AssertionSuccess();
}

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + name + "_" + std::to_string(::getpid()) + ".json";
}

TEST(TraceProbe, WritesNestedRunStepAndPhaseSpansAsChromeTraceJson) {
  TraceProbe probe(/*rank=*/0);
  drive(probe, "cnn/cuda/amp-bf16/pinned", 2, 3);
  const std::string path = temp_path("trace");
  probe.write_trace(path);
  const nlohmann::json trace = read_json(path);

  EXPECT_EQ(trace.at("displayTimeUnit"), "ms");
  const auto runs = events_with(trace, "X", "run");
  const auto steps = events_with(trace, "X", "step");
  const auto phases = events_with(trace, "X", "phase");
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_EQ(steps.size(), 5u);
  ASSERT_EQ(phases.size(), 25u);
  EXPECT_EQ(runs[0]["name"], "cnn/cuda/amp-bf16/pinned");
  EXPECT_EQ(runs[0]["pid"], 0);
  EXPECT_EQ(steps[0]["name"], "warmup step 0");
  EXPECT_EQ(steps[1]["name"], "warmup step 1");
  EXPECT_EQ(steps[2]["name"], "step 2");
  EXPECT_EQ(steps[2]["args"]["measured"], true);
  EXPECT_EQ(steps[0]["args"]["measured"], false);

  for (const auto& e : events_with(trace, "X")) {
    for (const char* key : {"name", "cat", "ph", "ts", "dur", "pid", "tid", "args"})
      EXPECT_TRUE(e.contains(key)) << key << " missing in " << e.dump();
    EXPECT_GE(e["dur"].get<double>(), 0.0);
  }
  // Events come out by start time, and every step lies in the run, every phase in its step.
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_TRUE(nested(steps[i], runs[0]));
    EXPECT_EQ(steps[i]["args"]["step"], i);
    for (std::size_t p = 0; p < kPhaseCount; ++p) {
      const auto& phase = phases[i * kPhaseCount + p];
      EXPECT_EQ(phase["name"], phase_name(kAllPhases[p]));
      EXPECT_EQ(phase["args"]["step"], i);
      EXPECT_TRUE(nested(phase, steps[i]));
    }
  }

  const auto metadata = events_with(trace, "M");
  bool process_named = false, thread_named = false;
  for (const auto& m : metadata) {
    if (m["name"] == "process_name") {
      EXPECT_EQ(m["args"]["name"], "gpubench rank 0 \u00b7 cnn/cuda/amp-bf16/pinned");
      process_named = true;
    }
    if (m["name"] == "thread_name" && m["tid"] == runs[0]["tid"]) thread_named = true;
  }
  EXPECT_TRUE(process_named);
  EXPECT_TRUE(thread_named);
  std::remove(path.c_str());
}

TEST(TraceProbe, DeviceSpansGetTheirOwnNamedTracks) {
  TraceProbe probe;
  probe.run_begin("cnn/cuda/fp32/pinned");
  const double t = TraceProbe::now_us();
  probe.add_device_span("GPU 0 \u00b7 stream 7", "volta_sgemm_128x64_nn", t, 12.5, {{"grid", "[80,1,1]"}});
  probe.add_device_span("GPU 0 \u00b7 stream 7", "elementwise_kernel", t + 20, 3.0);
  probe.add_device_span("GPU 0 \u00b7 copies", "memcpy HtoD", t + 1, 4.0, {{"bytes", 4096}});
  probe.run_end();
  const nlohmann::json trace = chrome_trace_json({probe.span_set()});
  const auto device = events_with(trace, "X", "device");
  ASSERT_EQ(device.size(), 3u);
  // Sorted by start: sgemm (t), memcpy (t+1), elementwise (t+20).
  EXPECT_EQ(device[0]["name"], "volta_sgemm_128x64_nn");
  EXPECT_EQ(device[0]["tid"], kFirstDeviceTrackTid);
  EXPECT_EQ(device[0]["args"]["grid"], "[80,1,1]");
  EXPECT_EQ(device[1]["tid"], kFirstDeviceTrackTid + 1);
  EXPECT_EQ(device[2]["tid"], kFirstDeviceTrackTid);
  EXPECT_DOUBLE_EQ(device[0]["dur"].get<double>(), 12.5);
  std::map<int, std::string> thread_names;
  for (const auto& m : events_with(trace, "M"))
    if (m["name"] == "thread_name") thread_names[m["tid"]] = m["args"]["name"];
  EXPECT_EQ(thread_names[kFirstDeviceTrackTid], "GPU 0 \u00b7 stream 7");
  EXPECT_EQ(thread_names[kFirstDeviceTrackTid + 1], "GPU 0 \u00b7 copies");
}

TEST(TraceProbe, MergesConfigsAndRanksIntoOneFile) {
  TraceProbe a0(0), a1(1), b0(0);
  drive(a0, "mlp/cpu/fp32/pageable", 0, 1);
  drive(a1, "mlp/cpu/fp32/pageable", 0, 1);
  drive(b0, "mlp/cpu/bf16/pageable", 0, 2);
  const std::string path = temp_path("merged");
  write_chrome_trace(path, {a0.span_set(), a1.span_set(), b0.span_set()});
  const nlohmann::json trace = read_json(path);
  std::map<int, std::string> processes;
  for (const auto& m : events_with(trace, "M"))
    if (m["name"] == "process_name") processes[m["pid"]] = m["args"]["name"];
  // Rank 0 appears in two configs, so the second config moves to pid 1000 + rank.
  const std::map<int, std::string> expected = {{0, "gpubench rank 0 \u00b7 mlp/cpu/fp32/pageable"},
                                               {1, "gpubench rank 1 \u00b7 mlp/cpu/fp32/pageable"},
                                               {1000, "gpubench rank 0 \u00b7 mlp/cpu/bf16/pageable"}};
  EXPECT_EQ(processes, expected);
  int steps_in_b0 = 0;
  for (const auto& e : events_with(trace, "X", "step")) steps_in_b0 += e["pid"] == 1000;
  EXPECT_EQ(steps_in_b0, 2);
  std::remove(path.c_str());
}

TEST(TraceProbe, OpenSpansAreClosedAndMarkedIncomplete) {
  TraceProbe probe;
  probe.run_begin("mlp/cuda/fp32/pinned");
  probe.step_begin(0, true);
  probe.phase_begin(Phase::Forward);  // then an exception: no end calls
  const nlohmann::json trace = chrome_trace_json({probe.span_set()});
  const auto spans = events_with(trace, "X");
  ASSERT_EQ(spans.size(), 3u);
  for (const auto& e : spans) EXPECT_EQ(e["args"]["incomplete"], true) << e.dump();
  EXPECT_TRUE(nested(spans[2], spans[1]));
  EXPECT_TRUE(nested(spans[1], spans[0]));
}

TEST(TraceProbe, ThreadsGetSmallDistinctIndices) {
  TraceProbe main_thread, other_thread;
  drive(main_thread, "a", 0, 1);
  std::thread([&] { drive(other_thread, "b", 0, 1); }).join();
  const int tid_main = main_thread.span_set().spans.at(0).tid;
  const int tid_other = other_thread.span_set().spans.at(0).tid;
  EXPECT_NE(tid_main, tid_other);
  EXPECT_LT(tid_main, 100);
  EXPECT_LT(tid_other, 100);
}

TEST(TraceProbe, UnwritablePathThrowsNamingIt) {
  TraceProbe probe;
  drive(probe, "a", 0, 1);
  try {
    probe.write_trace("/nonexistent-dir/trace.json");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/trace.json"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpubench
