// End to end: --model inputs that hung, crashed or misled gpubench (issue 49), each now exit
// 2 naming the model and what is wrong, before anything runs, on the archives
// tests/workloads/scripted_reference.py exports (a ctest fixture) and files made here. The
// forward that outgrows memory runs in a real memory cgroup (root, or skipped saying why).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/file_text.h"
#include "support/memory_cgroup.h"
#include "support/report_json.h"
#include "support/run_command.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using test_support::run_command;

std::string archive(const std::string& name) {
  const char* root = std::getenv("GPUBENCH_SCRIPTED_REFERENCE_DIR");
  return root == nullptr ? "" : std::string(root) + "/" + name;
}

#define REQUIRE_ARCHIVES()                                                       \
  if (archive("pool.pt").empty() || !fs::exists(archive("pool.pt")))            \
  GTEST_SKIP() << "the archives are not there: ctest runs scripted_reference.py first"

// gpubench under `timeout`, so that a hang fails the test (exit 124) instead of stalling it.
test_support::CommandResult gpubench(const std::string& args, int seconds = 120) {
  return run_command("timeout " + std::to_string(seconds) + " " + GPUBENCH_EXE + " " + args);
}

void expect_refused(const std::string& args, const std::string& fragment) {
  const auto run = gpubench(args);
  EXPECT_EQ(run.exit_code, 2) << args << ": " << run.output;
  EXPECT_NE(run.output.find(fragment), std::string::npos) << args << ": " << run.output;
  EXPECT_EQ(run.output.find("frame #"), std::string::npos) << "no stack trace: " << run.output;
}

const std::string kPool = " --input s=3x8x8 --classes s=10 --list";

// The probe's 240 GB example batch was built, and built again by the catch handler to print
// its shape: a C++ stack trace, exit 1.
TEST(HostileModels, AnInputTooLargeIsEstimatedBeforeItIsAllocated) {
  REQUIRE_ARCHIVES();
  expect_refused("--model s=" + archive("pool.pt") + " --input s=3x100000x100000 --classes s=10 --matrix s/cpu/fp32 "
                 "--batch-size 2 --steps 2 --warmup 1 --threads 1 --checkpoint-check off",
                 "--input s=3x100000x100000: a batch of 2 samples (2x3x100000x100000) is 223.5 GiB as fp32");
}

// A forward that never returns hung gpubench: the probe ran in the parent, which
// --config-timeout did not bound.
TEST(HostileModels, AForwardThatNeverReturnsIsBoundedByTheConfigTimeout) {
  REQUIRE_ARCHIVES();
  expect_refused("--model s=" + archive("hangs.pt") + kPool + " --config-timeout 3",
                 "--model archive '" + archive("hangs.pt") + "': its check (the archive loaded and one forward of "
                 "2x3x8x8, in a process of its own) did not finish within --config-timeout (3 s)");
}

// The archive check opened the path before knowing its type: a FIFO blocked it forever.
TEST(HostileModels, AFifoIsRefusedWithoutBlocking) {
  const std::string dir = test_support::make_temp_dir("fifo-model");
  ASSERT_EQ(::mkfifo((dir + "/f.pt").c_str(), 0600), 0);
  fs::create_symlink(dir + "/f.pt", dir + "/link.pt");
  for (const std::string file : {"/f.pt", "/link.pt"}) {
    expect_refused("--model s=" + dir + file + " --list", "--model s='" + dir + file + "' is a FIFO");
    expect_refused("--model s=" + dir + file + kPool, "--model s='" + dir + file + "' is a FIFO");
  }
  fs::remove_all(dir);
}

// What trains nothing, or is not a model, refused up front: these were failed rows per
// config with LibTorch's raw message (exit 0), or called "a config.json model".
TEST(HostileModels, WhatCannotTrainOrIsNoModelIsRefusedUpFrontForWhatItIs) {
  REQUIRE_ARCHIVES();
  const std::string dir = test_support::make_temp_dir("no-model");
  fs::create_directories(dir + "/empty");
  for (const auto& [model, fragment] : std::vector<std::pair<std::string, std::string>>{
           {archive("int_logits.pt"), "its output is Long: expected floating-point logits"},
           {archive("no_parameters.pt"), "has no parameters"},
           {archive("frozen.pt"), "all 2 of its parameters have requires_grad false (frozen)"},
           {archive("detached.pt"), "its output does not require grad"},
           {archive("asserts.pt"), "RuntimeError: AssertionError: expected 4 channels (raised at File \""},
           {archive("inflating.pt"), "'pool/data/99' alone 536870912 from "},
           {archive("legacy.pt"), "is a Python pickle (torch.save's legacy format?)"},
           {"/dev/zero", "--model s='/dev/zero' is a character device"},
           {dir + "/empty", "is a folder without config.json"}})
    expect_refused("--model s=" + model + kPool, fragment);
  fs::remove_all(dir);
}

// A folder whose weights are only pytorch_model.bin trains from random init: the row said
// so, the terminal did not.
TEST(HostileModels, WeightsInAFormatNotReadAreSaidOnTheTerminal) {
  const std::string dir = test_support::make_temp_dir("bin-model");
  std::ofstream(dir + "/config.json") << nlohmann::json{
      {"architectures", {"LlamaForCausalLM"}}, {"model_type", "llama"}, {"hidden_act", "silu"}, {"hidden_size", 32},
      {"intermediate_size", 64}, {"max_position_embeddings", 64}, {"num_attention_heads", 4}, {"num_hidden_layers", 1},
      {"num_key_value_heads", 2}, {"rms_norm_eps", 1e-5}, {"rope_theta", 10000.0}, {"tie_word_embeddings", false},
      {"vocab_size", 101}};
  std::ofstream(dir + "/pytorch_model.bin") << "a pickle";
  const auto run = gpubench("--model t=" + dir + " --list --matrix t/cpu/fp32");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("gpubench: warning: --model t: folder '" + dir + "' holds pytorch_model.bin but no "
                            "safetensors, and gpubench reads safetensors only: t trains from random init"),
            std::string::npos)
      << run.output;
  fs::remove_all(dir);
}

// Issue 61, item 13: a model's print went to gpubench's standard output (LibTorch's
// default), in the probe's process and every config child: `--format json` was no longer
// JSON, and the model wrote terminal escapes and a forged "Result: 0 regressions" line
// there. Its prints go to standard error, marked as the model's and escaped.
TEST(HostileModels, AModelsPrintNeverReachesStandardOutput) {
  REQUIRE_ARCHIVES();
  const std::string dir = test_support::make_temp_dir("model-print");
  const auto run = run_command("{ timeout 300 " + std::string(GPUBENCH_EXE) + " --model p=" + archive("prints.pt") +
                               " --input p=3x8x8 --classes p=10 --matrix p/cpu/fp32 --steps 2 --warmup 1 --batch-size 2 "
                               "--threads 1 --checkpoint-check off --format json --out " + dir + "/r.json 2>" + dir +
                               "/err; }");
  const std::string err = test_support::file_text(dir + "/err");
  ASSERT_EQ(run.exit_code, 0) << run.output << err;
  nlohmann::json printed;
  ASSERT_NO_THROW(printed = nlohmann::json::parse(run.output)) << "standard output is the report alone: " << run.output;
  const auto* row = test_support::find_row(printed, "p/cpu/fp32");
  ASSERT_NE(row, nullptr) << run.output;
  EXPECT_EQ((*row)["status"], "ok") << row->dump();
  for (const std::string text : {"Result: 0 regressions", "pwned", "\x1b"})
    EXPECT_EQ(run.output.find(text), std::string::npos) << text;
  EXPECT_NE(err.find("gpubench: the model printed: \\x1b]0;pwned\\x07\\x1b[2J\\nResult: 0 regressions, 3 improvements\n"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find('\x1b'), std::string::npos) << "no escape reaches the terminal raw: " << err;
}

// In a 1.5 GiB cgroup: a forward making torch.ones(1500000000) (6 GB) took gpubench itself
// down (the OOM killer's SIGKILL, no report); a 6 GiB probe input too.
TEST(HostileModels, AForwardThatOutgrowsMemoryIsARefusalNotGpubenchsDeath) {
  REQUIRE_ARCHIVES();
  test_support::TestMemoryCgroup cgroup(test_support::kTestCgroupLimit);
  if (!cgroup.ready()) GTEST_SKIP() << cgroup.why_not();
  auto run = run_command(cgroup.inside("timeout 300 " + std::string(GPUBENCH_EXE) + " --model s=" + archive("huge_forward.pt") + kPool));
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("--model archive '" + archive("huge_forward.pt") + "': its check (the archive loaded and one "
                            "forward of 2x3x8x8, in a process of its own) ran out of memory: killed by the kernel's OOM killer"),
            std::string::npos)
      << run.output;
  run = run_command(cgroup.inside("timeout 300 " + std::string(GPUBENCH_EXE) + " --model s=" + archive("pool.pt") +
                                  " --input s=3x16384x16384 --classes s=10 --list"));
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("--input s=3x16384x16384: a batch of 2 samples (2x3x16384x16384) is 6.0 GiB as fp32"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("(the cgroup's memory limit less its usage)"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace gpubench
