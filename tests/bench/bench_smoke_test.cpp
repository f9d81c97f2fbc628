// Runs gpubench-bench once on a filter of small cases with a tiny --benchmark_min_time,
// then checks its Google Benchmark JSON and its ceilings file. Several seconds on 2 cores.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/ceilings/ceilings_file.h"
#include "support/file_text.h"

namespace gpubench {
namespace {

using nlohmann::json;

// Small cases of every area; the CUDA ones skip here (no driver) in microseconds.
constexpr const char* kFilter =
    "^(copy/h2d/pinned/bytes:4096|copy/d2d/bytes:4096|matmul/cpu/(fp32|bf16)/n:256|matmul/cuda/(fp16|fp8)/n:2048"
    "|(allreduce|allgather|reducescatter)/gloo/bytes:(4096|65536)|(allreduce|allgather|reducescatter)/nccl/bytes:4096"
    "|loader/mlp/workers:[01]|train_step/(cpu|cuda)/mlp)/";

// For the shell: the paths and the filter hold no single quotes.
std::string shell_quoted(const std::string& text) { return "'" + text + "'"; }

// Exit code of `arguments` run through the shell with output appended to `log`.
int run_bench(const std::string& arguments, const std::string& log) {
  const int status = std::system((shell_quoted(GPUBENCH_BENCH_BINARY) + " " + arguments + " >>" + shell_quoted(log) + " 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

using test_support::file_text;

// A collective peer's command line that cannot be right is exit 2 at once, naming what:
// port 70000 wrapped to 4464, and a bad rank or backend took 40-60 s of connecting and c10d
// stack traces to say so (issue 61, item 9).
TEST(CollectivePeer, BadArgumentsAreExitTwoAtOnce) {
  char pattern[] = "/tmp/gpubench-bench-peer-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string log = std::string(pattern) + "/log.txt";
  for (const auto& [arguments, expected] : std::vector<std::pair<std::string, std::string>>{
           {"gloo 70000 1 2", "port '70000': expected a whole number in 1..65535"},
           {"gloo 29500 2x 2", "rank '2x'"},
           {"gloo 29500 2 2", "rank '2': expected a whole number in 1..1"},
           {"gloo 29500 1 1", "world size '1'"},
           {"bogus 29500 1 2", "backend 'bogus': expected gloo or nccl"},
           {"gloo 29500 1", "BACKEND PORT RANK WORLD"}}) {
    std::remove(log.c_str());
    EXPECT_EQ(run_bench("--gpubench-collective-peer " + arguments, log), 2) << arguments;
    const std::string said = file_text(log);
    EXPECT_NE(said.find(expected), std::string::npos) << arguments << ": " << said;
    EXPECT_EQ(said.find("frame #"), std::string::npos) << "no stack trace: " << said;
  }
  std::system(("rm -rf " + shell_quoted(pattern)).c_str());
}

class BenchSmoke : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char pattern[] = "/tmp/gpubench-bench-smoke-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    log_ = dir_ + "/log.txt";
    // 1.7.1 spells the minimum time as seconds without a unit (1.8+ still accepts it).
    exit_code_ = run_bench(std::string("--benchmark_filter=") + shell_quoted(kFilter) +
                               " --benchmark_min_time=0.01 --benchmark_out=" + shell_quoted(dir_ + "/out.json") +
                               " --benchmark_out_format=json --ceilings-out=" + shell_quoted(dir_ + "/ceilings.json"),
                           log_);
    try {
      output_ = json::parse(file_text(dir_ + "/out.json"));
    } catch (const std::exception& error) {
      std::cerr << "no JSON output: " << error.what() << "\n";
    }
    for (const auto& entry : output_.value("benchmarks", json::array())) {
      std::cerr << "  " << entry.value("name", std::string("?"));
      if (entry.value("error_occurred", false)) std::cerr << "  SKIPPED: " << entry.value("error_message", std::string());
      std::cerr << "\n";
    }
  }
  static void TearDownTestSuite() { std::system(("rm -rf " + shell_quoted(dir_)).c_str()); }

  void TearDown() override {
    if (HasFailure()) std::cerr << "gpubench-bench output:\n" << file_text(log_) << "\n";
  }

  // The single entry of the run `prefix` names (run names add "/real_time" etc.).
  static json find(const std::string& prefix) {
    for (const auto& entry : output_.value("benchmarks", json::array()))
      if (entry.value("run_name", std::string()).rfind(prefix + "/", 0) == 0) return entry;
    ADD_FAILURE() << "no benchmark " << prefix << " in the output";
    return json::object();
  }
  static bool cuda_available() { return output_["context"].value("cuda", std::string()) == "available"; }

  static std::string dir_, log_;
  static int exit_code_;
  static json output_;
};

std::string BenchSmoke::dir_, BenchSmoke::log_;
int BenchSmoke::exit_code_ = -1;
json BenchSmoke::output_ = json::object();

TEST_F(BenchSmoke, ExitsZeroWithJsonAndContext) {
  EXPECT_EQ(exit_code_, 0);
  ASSERT_TRUE(output_.contains("benchmarks"));
  EXPECT_EQ(output_["benchmarks"].size(), 19u);
  EXPECT_TRUE(output_["context"].contains("torch_threads"));
  EXPECT_TRUE(output_["context"].contains("torch_version"));
}

TEST_F(BenchSmoke, CpuBenchmarksMeasuredSomething) {
  for (const char* name : {"matmul/cpu/fp32/n:256", "matmul/cpu/bf16/n:256"}) {
    const json entry = find(name);
    EXPECT_FALSE(entry.value("error_occurred", false)) << name << ": " << entry.value("error_message", std::string());
    EXPECT_GT(entry.value("tflops", 0.0), 0.0) << name;
  }
  for (const char* name : {"loader/mlp/workers:0", "loader/mlp/workers:1", "train_step/cpu/mlp"}) {
    const json entry = find(name);
    EXPECT_FALSE(entry.value("error_occurred", false)) << name << ": " << entry.value("error_message", std::string());
    EXPECT_GT(entry.value("items_per_second", 0.0), 0.0) << name;
  }
}

// Each collective over Gloo between this process and a peer process, checked in every
// iteration; busbw is algbw x nccl-tests' bus factor: 2(n-1)/n = 1 for all-reduce, (n-1)/n
// = 1/2 for all-gather and reduce-scatter, with 2 ranks.
TEST_F(BenchSmoke, EveryGlooCollectiveIsCheckedCorrectAcrossTwoProcesses) {
  for (const auto& [collective, bus_factor] : {std::pair<std::string, double>{"allreduce", 1.0},
                                               {"allgather", 0.5}, {"reducescatter", 0.5}}) {
    for (const std::string bytes : {"4096", "65536"}) {
      const std::string name = collective + "/gloo/bytes:" + bytes;
      const json entry = find(name);
      EXPECT_FALSE(entry.value("error_occurred", false)) << name << ": " << entry.value("error_message", std::string());
      EXPECT_EQ(entry.value("correct", 0.0), 1.0) << name;
      EXPECT_EQ(entry.value("ranks", 0.0), 2.0) << name;
      EXPECT_EQ(entry.value("size_bytes", 0.0), std::stod(bytes)) << name;
      EXPECT_GT(entry.value("busbw_gb_per_s", 0.0), 0.0) << name;
      EXPECT_DOUBLE_EQ(entry.value("busbw_gb_per_s", 0.0), entry.value("algbw_gb_per_s", -1.0) * bus_factor) << name;
    }
  }
}

TEST_F(BenchSmoke, CudaBenchmarksSkipWithTheDriversReasonWhenThereIsNoDevice) {
  if (cuda_available()) GTEST_SKIP() << "this machine has a CUDA device";
  for (const char* name : {"copy/h2d/pinned/bytes:4096", "copy/d2d/bytes:4096", "matmul/cuda/fp16/n:2048", "matmul/cuda/fp8/n:2048",
                           "allreduce/nccl/bytes:4096", "allgather/nccl/bytes:4096", "reducescatter/nccl/bytes:4096",
                           "train_step/cuda/mlp"}) {
    const json entry = find(name);
    EXPECT_TRUE(entry.value("error_occurred", false)) << name;
    EXPECT_EQ(entry.value("error_message", std::string()).rfind("no CUDA device: ", 0), 0u)
        << name << ": " << entry.value("error_message", std::string());
  }
}

TEST_F(BenchSmoke, CopiesRunWhereThereIsADevice) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* name : {"copy/h2d/pinned/bytes:4096", "copy/d2d/bytes:4096"}) {
    const json entry = find(name);
    EXPECT_FALSE(entry.value("error_occurred", false)) << name << ": " << entry.value("error_message", std::string());
    EXPECT_GT(entry.value("bytes_per_second", 0.0), 0.0) << name;
  }
}

TEST_F(BenchSmoke, CeilingsFileHoldsTheCpuNumbersAndTheSkipReasons) {
  const json ceilings = load_ceilings(dir_ + "/ceilings.json");
  EXPECT_GT(find_ceiling(ceilings, "matmul_tflops.cpu.fp32").value_or(0), 0);
  EXPECT_GT(find_ceiling(ceilings, "matmul_tflops.cpu.bf16").value_or(0), 0);
  for (const char* collective : {"allreduce", "allgather", "reducescatter"}) {
    EXPECT_GT(find_ceiling(ceilings, std::string(collective) + "_busbw_gb_per_s.gloo").value_or(0), 0) << collective;
    EXPECT_GT(find_ceiling(ceilings, std::string(collective) + "_algbw_gb_per_s.gloo").value_or(0), 0) << collective;
  }
  EXPECT_GT(find_ceiling(ceilings, "loader_samples_per_s.mlp.1").value_or(0), 0);
  EXPECT_GT(find_ceiling(ceilings, "train_step_samples_per_s.cpu.mlp").value_or(0), 0);
  if (!cuda_available()) {
    EXPECT_EQ(ceilings["skipped"].value("h2d_pinned_gb_per_s", std::string()).rfind("no CUDA device: ", 0), 0u);
    EXPECT_EQ(ceilings["skipped"].value("reducescatter_busbw_gb_per_s.nccl", std::string()).rfind("no CUDA device: ", 0), 0u);
  }
}

TEST_F(BenchSmoke, DistilModeConvertsSavedOutputToTheSameCeilings) {
  ASSERT_EQ(run_bench("--distil=" + shell_quoted(dir_ + "/out.json") + " --ceilings-out=" + shell_quoted(dir_ + "/again.json"), log_), 0);
  EXPECT_EQ(load_ceilings(dir_ + "/again.json"), load_ceilings(dir_ + "/ceilings.json"));
}

TEST_F(BenchSmoke, BadInputExitsTwo) {
  EXPECT_EQ(run_bench("--distil=" + shell_quoted(dir_ + "/missing.json") + " --ceilings-out=" + shell_quoted(dir_ + "/x.json"), log_), 2);
  EXPECT_EQ(run_bench("--ceilings-out=" + shell_quoted(dir_ + "/x.json") + " --benchmark_out_format=csv", log_), 2);
}

}  // namespace
}  // namespace gpubench
