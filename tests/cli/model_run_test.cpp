// End to end: `--model NAME=PATH` makes a user's Hugging Face model (saved by transformers
// with save_pretrained: tests/workloads/hf_family_reference.py, a ctest fixture) a workload
// of the run, under the whole matrix; what gpubench cannot honour is exit 2 naming it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/report_json.h"
#include "support/run_command.h"
#include "support/schema_validation.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using test_support::find_row;
using test_support::run_command;

std::string case_dir(const std::string& name) {
  const char* root = std::getenv("GPUBENCH_FAMILY_REFERENCE_DIR");
  return root == nullptr ? "" : std::string(root) + "/" + name;
}

#define REQUIRE_CASE(dir)                                                                     \
  if ((dir).empty() || !fs::exists((dir) + "/config.json"))                                  \
  GTEST_SKIP() << "the family references are not there: ctest runs hf_family_reference.py first"

TEST(ModelRun, AConfigModelRunsTheWholeMatrixOnThisCpu) {
  const std::string model = case_dir("llama_gqa_llama3_tied");
  REQUIRE_CASE(model);
  const std::string dir = test_support::make_temp_dir("model-run");
  const auto run = run_command(std::string(GPUBENCH_EXE) + " --model smol=" + model +
                               " --matrix all --workload smol --preset quick --steps 3 --warmup 1 --threads 1 "
                               "--format json --out " + dir + "/report.json > /dev/null");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto report = test_support::read_json(dir + "/report.json");
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  const auto ran = test_support::rows_that_ran(report);
  for (const nlohmann::json* row : ran) {
    EXPECT_EQ((*row)["workload"]["model_type"], "llama");
    EXPECT_NE((*row)["workload"]["weights"].get<std::string>().find("model.safetensors"), std::string::npos);
    EXPECT_GT((*row)["throughput"]["tokens_per_s"]["median"].get<double>(), 0);
    EXPECT_NE((*row)["flops"]["convention"].get<std::string>().find("6 N + 12 L H Q T"), std::string::npos);
  }
  EXPECT_GE(ran.size(), 4u) << "fp32, bf16, ddp-2 and the CPU recipe at least";
  const auto* fp32 = find_row(report, "smol/cpu/fp32");
  ASSERT_NE(fp32, nullptr);
  EXPECT_EQ((*fp32)["workload"]["seq_len"], 128) << "the config's context, under the 2048 cap";
}

TEST(ModelRun, CheckpointCheckOnceMakesTheRoundTripInTheFirstConfigOnlyAndOffInNone) {
  const std::string model = case_dir("qwen2_qkv_bias");
  REQUIRE_CASE(model);
  const std::string dir = test_support::make_temp_dir("model-once");
  const auto run = run_command(std::string(GPUBENCH_EXE) + " --model q=" + model +
                               " --matrix q/cpu/fp32,q/cpu/fp32/adam-fused --checkpoint-check once --steps 2 "
                               "--warmup 0 --seq-len 32 --format json --out " + dir + "/report.json > /dev/null");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto report = test_support::read_json(dir + "/report.json");
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  EXPECT_TRUE((*find_row(report, "q/cpu/fp32"))["checkpoint"]["done"].get<bool>());
  const auto& second = (*find_row(report, "q/cpu/fp32/adam-fused"))["checkpoint"];
  EXPECT_FALSE(second["done"].get<bool>());
  EXPECT_NE(second["reason"].get<std::string>().find("made in q/cpu/fp32"), std::string::npos) << second;
  EXPECT_EQ((*find_row(report, "q/cpu/fp32"))["workload"]["seq_len"], 32);
  // off: the parent tells the child, which says so in the row.
  const auto off = run_command(std::string(GPUBENCH_EXE) + " --model q=" + model +
                               " --matrix q/cpu/fp32 --checkpoint-check off --steps 2 --warmup 0 --seq-len 32 "
                               "--format json --out " + dir + "/off.json > /dev/null");
  ASSERT_EQ(off.exit_code, 0) << off.output;
  const auto off_row = test_support::read_json(dir + "/off.json")["results"][0]["checkpoint"];
  EXPECT_EQ(off_row, (nlohmann::json{{"done", false}, {"reason", "off (--checkpoint-check off)"}}));
}

TEST(ModelRun, WhatCannotBeHonouredIsExitTwoNamingIt) {
  const std::string llama = case_dir("llama_gqa_llama3_untied"), gpt2 = case_dir("gpt2_gelu_new");
  REQUIRE_CASE(llama);
  const std::string dir = test_support::make_temp_dir("model-bad");
  // A config the family code does not build (gemma), and weights of another model.
  fs::create_directories(dir + "/gemma");
  std::ofstream(dir + "/gemma/config.json") << R"({"model_type": "gemma", "architectures": ["GemmaForCausalLM"]})";
  fs::create_directories(dir + "/mixed");
  fs::copy_file(gpt2 + "/config.json", dir + "/mixed/config.json");
  fs::copy_file(llama + "/model.safetensors", dir + "/mixed/model.safetensors");
  std::ofstream tokens(dir + "/tokens.bin", std::ios::binary);
  for (std::uint16_t id = 0; id < 600; ++id) {
    const std::uint16_t value = id == 500 ? 101 : id % 100;  // one id at the vocabulary (101)
    tokens.write(reinterpret_cast<const char*>(&value), 2);
  }
  tokens.close();
  const std::string exe = GPUBENCH_EXE;
  for (const auto& [args, fragment] : std::vector<std::pair<std::string, std::string>>{
           {"--model x=/nonexistent --list", "neither a folder holding config.json nor a config.json file"},
           {"--model g=" + dir + "/gemma --list", "model_type"},
           {"--model m=" + dir + "/mixed --list", "do not match config.json"},
           {"--model mlp=" + llama + " --list", "'mlp' is a built-in workload"},
           {"--model a/b=" + llama + " --list", "expected NAME=PATH"},
           {"--model s=" + llama + " --seq-len gpt2=64 --list", "gpt2 is nanoGPT's"},
           {"--model s=" + llama + " --matrix s/cpu/fp32 --data s=" + dir + "/tokens.bin --seq-len 16 --out " + dir + "/r.json",
            "has token id 101 at token 500 (byte offset 1000)"}}) {
    const auto run = run_command(exe + " " + args);
    EXPECT_EQ(run.exit_code, 2) << args << ": " << run.output;
    EXPECT_NE(run.output.find(fragment), std::string::npos) << args << ": " << run.output;
    EXPECT_EQ(run.output.find("frame #"), std::string::npos) << "no stack trace: " << run.output;
  }
}

// The built-in llama's CPU rows do not fit a small machine: refused up front with the
// estimate (a skipped row), never left to the OOM killer.
TEST(ModelRun, LlamaOnAMachineTooSmallIsSkippedWithItsEstimate) {
  const auto list = run_command(std::string(GPUBENCH_EXE) + " --list --matrix llama/cpu/fp32");
  ASSERT_EQ(list.exit_code, 0) << list.output;
  if (list.output.find("runs here") != std::string::npos) GTEST_SKIP() << "this machine holds ~40 GiB free: " << list.output;
  // At a CPU's 128 tokens (workloads/decoder_lm.h): its states alone nearly fill 24 GiB.
  EXPECT_NE(list.output.find("skip: needs ~"), std::string::npos) << list.output;
  EXPECT_NE(list.output.find(" GiB of host memory (weights, gradients and Adam state 18.4 GiB"), std::string::npos)
      << list.output;
}

// A folder holding the config.json of an untied Llama with a 32000-token vocabulary (as
// TinyLlama's), no weights: --weights random builds it.
struct LlamaSizes {
  int hidden, intermediate, context, heads, layers, kv_heads;
};
std::string llama_config_folder(const std::string& name, const LlamaSizes& s) {
  const std::string dir = test_support::make_temp_dir(name);
  std::ofstream(dir + "/config.json") << nlohmann::json{
      {"architectures", {"LlamaForCausalLM"}}, {"model_type", "llama"}, {"hidden_act", "silu"},
      {"hidden_size", s.hidden}, {"intermediate_size", s.intermediate}, {"max_position_embeddings", s.context},
      {"num_attention_heads", s.heads}, {"num_hidden_layers", s.layers}, {"num_key_value_heads", s.kv_heads},
      {"rms_norm_eps", 1e-5}, {"rope_theta", 10000.0}, {"tie_word_embeddings", false}, {"vocab_size", 32000}};
  return dir;
}

// TinyLlama-1.1B's shape (random weights) trains in ~20 GiB, but its checkpoint round trip's
// second model and optimizer (16 GiB more) do not fit 24 GiB: the config runs, the round
// trip is left out, saying why (--list says so up front; nothing is built to list).
TEST(ModelRun, AModelWhoseRoundTripCannotFitRunsWithoutIt) {
  const std::string dir = llama_config_folder("tinyllama", {2048, 5632, 2048, 32, 22, 4});
  const auto list = run_command(std::string(GPUBENCH_EXE) + " --list --model tiny=" + dir +
                                " --weights random --matrix tiny/cpu/fp32 --seq-len 16");
  ASSERT_EQ(list.exit_code, 0) << list.output;
  if (list.output.find("runs here") == std::string::npos) GTEST_SKIP() << "under ~20 GiB free: " << list.output;
  if (list.output.find("left out") == std::string::npos) GTEST_SKIP() << "over ~34 GiB free: " << list.output;
  EXPECT_NE(list.output.find("; checkpoint round trip left out: the round trip's second model and optimizer (~16.4 GiB)"),
            std::string::npos)
      << list.output;
}

// The estimate a CPU config is refused by holds what its run held: a 56M-parameter Llama
// (8 layers, hidden 512, vocab 32000, untied) at its 256-token context, plain and ckpt,
// under the default heap and glibc's. Not far above it either (the refusal would then turn
// away configs that fit).
TEST(ModelRun, TheMemoryEstimateHoldsWhatTheRunHeld) {
  const std::string dir = llama_config_folder("mid-llama", {512, 1408, 256, 8, 8, 4});
  for (const std::string heap : {"retain", "glibc"}) {
    const std::string out = dir + "/" + heap + ".json";
    const auto run = run_command(std::string(GPUBENCH_EXE) + " --model mid=" + dir + " --weights random --matrix "
                                 "mid/cpu/fp32,mid/cpu/fp32/ckpt --steps 4 --warmup 1 --checkpoint-check off --host-malloc " +
                                 heap + " --format json --out " + out + " > /dev/null");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    for (const auto& row : test_support::read_json(out)["results"]) {
      SCOPED_TRACE(heap + " " + row.value("config_id", "?"));
      ASSERT_EQ(row["status"], "ok") << row.dump(1);
      const double estimate = row["workload"]["memory_estimate"]["device_total_bytes"];
      const double held = row["memory"]["host_peak_rss_bytes_training"];
      EXPECT_LE(held, estimate);
      EXPECT_GE(held, 0.7 * estimate);
    }
  }
}

// A Llama whose MLP is 1024 x its hidden width (issue 49, item 4): the estimate ignored
// intermediate_size, said "runs here" and the run was OOM-killed (at 1024 tokens 1.37 GiB
// estimated, 4.12 GiB held). Its activations are counted now, and under the default heap
// what a step frees and makes again: held within 70-100% of the estimate, as the 56M
// Llama's above (measured 0.79); glibc's heap holds less, never more.
TEST(ModelRun, AWideMlpLlamaIsHeldToItsEstimate) {
  const std::string dir = llama_config_folder("wide-llama", {64, 65536, 256, 4, 2, 4});
  for (const std::string heap : {"retain", "glibc"}) {
    const std::string out = dir + "/" + heap + ".json";
    const auto run = run_command(std::string(GPUBENCH_EXE) + " --model wide=" + dir + " --weights random --matrix "
                                 "wide/cpu/fp32 --seq-len wide=256 --steps 3 --warmup 1 --threads 1 --checkpoint-check off --host-malloc " +
                                 heap + " --format json --out " + out + " > /dev/null");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const nlohmann::json row = test_support::read_json(out)["results"][0];
    SCOPED_TRACE(heap);
    ASSERT_EQ(row["status"], "ok") << row.dump(1);
    const double estimate = row["workload"]["memory_estimate"]["device_total_bytes"];
    const double activations = row["workload"]["memory_estimate"]["activations_bytes"];
    const double held = row["memory"]["host_peak_rss_bytes_training"];
    EXPECT_GT(activations, 0.2 * estimate) << "the MLP's width is counted (34 x hidden made it 0.3%)";
    EXPECT_LE(held, estimate);
    if (heap == "retain") {
      EXPECT_GE(held, 0.7 * estimate);
    }
  }
}

}  // namespace
}  // namespace gpubench
