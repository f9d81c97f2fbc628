// End to end: a real matrix run through the CLI, children and all, checked against the
// report schema, with NVTX ranges recorded by a test injection library and a trace file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/report_json.h"
#include "support/schema_validation.h"

namespace gpubench {
namespace {

using test_support::find_row;
using test_support::read_json;

// The command the tests below check (GPUBENCH_MATRIX_RUN_ARGS, from CMakeLists.txt); ctest
// runs it once for all of them (the matrix_run fixture), as each test is a process of its own.
const std::string kArgs = std::string(" ") + GPUBENCH_MATRIX_RUN_ARGS;

class MatrixRun : public ::testing::Test {
 protected:
  // One run shared by the tests below: mlp under every config of `all`. Under ctest its
  // fixture made it (GPUBENCH_MATRIX_RUN_DIR); run by hand, the first test makes it.
  static void SetUpTestSuite() {
    if (const char* made = std::getenv("GPUBENCH_MATRIX_RUN_DIR")) {
      dir_ = made;
      std::ifstream code(dir_ + "/exit_code"), output(dir_ + "/output.txt");
      std::stringstream text;
      text << output.rdbuf();
      run_ = new test_support::CommandResult{-1, text.str()};
      code >> run_->exit_code;
      return;
    }
    dir_ = test_support::make_temp_dir("matrix");
    // CUDA_VISIBLE_DEVICES= hides every GPU: the CPU configs run and the CUDA ones take the
    // no-device path on every machine (the GPU machine runs them in scripts/device-validate.sh).
    // TMPDIR: where gpubench keeps what its children hand back (results, traces, the
    // checkpoint round trip), to be found empty afterwards.
    std::filesystem::create_directory(dir_ + "/tmp");
    const std::string env = std::string("CUDA_VISIBLE_DEVICES= NVTX_INJECTION64_PATH=") + GPUBENCH_NVTX_RECORDER +
                            " GPUBENCH_NVTX_LOG=" + dir_ + "/nvtx.log TMPDIR=" + dir_ + "/tmp ";
    run_ = new test_support::CommandResult(test_support::run_command(env + GPUBENCH_EXE + kArgs + " --out " + dir_ +
                                                                      "/report.json --trace " + dir_ + "/trace.json"));
  }
  static void TearDownTestSuite() { delete run_; }
  static inline std::string dir_;
  static inline test_support::CommandResult* run_ = nullptr;
};

TEST_F(MatrixRun, SucceedsAndPrintsMarkdown) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  EXPECT_NE(run_->output.find("## mlp"), std::string::npos) << run_->output;
  EXPECT_NE(run_->output.find("| mlp/cpu/fp32 | ok |"), std::string::npos) << run_->output;
  EXPECT_NE(run_->output.find("[1/"), std::string::npos) << "progress per config on stderr";
  EXPECT_NE(run_->output.find("] mlp/cpu/fp32 "), std::string::npos) << "progress per config on stderr";
}

// `all` ends with mlp's recipes: the CUDA one (amp-bf16 + graph) and, on a CPU with bf16
// units, the CPU one (bf16 + fused Adam; fp32 + fused Adam, already a row, elsewhere).
bool cpu_recipe_row(const nlohmann::json& report) { return find_row(report, "mlp/cpu/bf16/adam-fused") != nullptr; }

// Children's results, traces and checkpoints went through private directories under
// TMPDIR (mode 0700, random names), removed with their contents.
TEST_F(MatrixRun, LeavesNothingBehindInTmpdir) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  std::string left;
  for (const auto& entry : std::filesystem::directory_iterator(dir_ + "/tmp")) left += entry.path().string() + " ";
  EXPECT_EQ(left, "");
}

TEST_F(MatrixRun, ReportMatchesTheSchema) {
  const auto report = read_json(dir_ + "/report.json");
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  // mlp's 24 single-technique ids in all (the sharded modes beside ddp on both devices
  // among them), and its recipes
  EXPECT_EQ(report["results"].size(), 24u + 1u + (cpu_recipe_row(report) ? 1u : 0u));
  EXPECT_NE(find_row(report, "mlp/cuda/amp-bf16/pinned/graph"), nullptr);
  EXPECT_EQ(report["results"].size(), report["matrix"]["config_ids"].size());
  EXPECT_EQ(report["env"]["threads"], report["matrix"]["threads"]);
  EXPECT_EQ(report["matrix"]["host_malloc"]["mode"], "retain") << "the default, and said in the report";
}

TEST_F(MatrixRun, CpuRowsAreMeasuredAndGpuRowsSkippedWithLibTorchsReason) {
  const auto report = read_json(dir_ + "/report.json");
  for (const std::string id : {"mlp/cpu/fp32", "mlp/cpu/bf16"}) {
    const auto* row = find_row(report, id);
    ASSERT_NE(row, nullptr) << id;
    EXPECT_EQ((*row)["status"], "ok") << row->dump();
    EXPECT_EQ((*row)["samples"]["step_ms"].size(), 3u);
    EXPECT_GT((*row)["throughput"]["samples_per_s"]["median"].get<double>(), 0);
    EXPECT_TRUE((*row)["checkpoint"]["parameters_equal"].get<bool>());
    EXPECT_TRUE((*row)["checkpoint"]["outputs_equal"].get<bool>());
    EXPECT_GT((*row)["checkpoint"]["bytes"].get<double>(), 7e6) << "1.86M fp32 params + Adam state";
    EXPECT_GT((*row)["memory"]["host_peak_rss_bytes"].get<double>(), 0);
    EXPECT_EQ((*row)["stopping"]["reason"], "steps");
    EXPECT_TRUE((*row)["stopping"]["median_ci95_relative"].is_number()) << "3 steps: a spread";
  }
  const auto* gpu = find_row(report, "mlp/cuda/amp-fp16/pinned");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ((*gpu)["status"], "skipped");
  EXPECT_EQ((*gpu)["reason"].get<std::string>().rfind("no CUDA device: ", 0), 0u) << (*gpu)["reason"];
  // The report says which LibTorch, and the CUDA, cuDNN and NCCL it was built with.
  EXPECT_EQ(report["env"]["torch_version"].get<std::string>().rfind("2.", 0), 0u) << report["env"];
  for (const char* part : {"cuda", "cudnn", "nccl"})
    EXPECT_TRUE(report["env"]["torch_build"][part].is_string()) << part << ": " << report["env"];
  const auto& comparisons = report["comparisons"];
  ASSERT_FALSE(comparisons.empty());
  EXPECT_EQ(comparisons[0]["kind"], "bf16_vs_fp32");
  EXPECT_GT(comparisons[0]["speedup"].get<double>(), 0);
}

TEST_F(MatrixRun, TraceHasEveryMeasuredConfigsSpans) {
  const auto trace = read_json(dir_ + "/trace.json");
  int steps = 0, backward = 0;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] != "X") continue;
    if (event["cat"] == "step") ++steps;
    if (event["name"] == "backward") ++backward;
  }
  // fp32, bf16, ddp-2, zero1-2, zero2-2, fsdp-2 (rank 0 hands its spans back),
  // adam-foreach, adam-fused, acc4 and the CPU recipe where it is a row of its own, 1
  // warm-up + 3 measured steps each; acc4's steps have 4 backward phases each.
  const int recipe = cpu_recipe_row(read_json(dir_ + "/report.json")) ? 1 : 0;
  EXPECT_EQ(steps, (9 + recipe) * 4) << "the CPU configs, 1 warm-up + 3 measured steps each";
  EXPECT_EQ(backward, (8 + recipe) * 4 + 4 * 4);
}

TEST_F(MatrixRun, NvtxRangesNestRunStepPhaseInTheGpubenchDomain) {
  std::ifstream log(dir_ + "/nvtx.log");
  std::string line, text;
  int pushes = 0, pops = 0;
  while (std::getline(log, line)) {
    if (line.find("\tpush\tgpubench\t") != std::string::npos) ++pushes;
    if (line.find("\tpop\tgpubench\t") != std::string::npos) ++pops;
    text += line + "\n";
  }
  // Per CPU process: 1 run + 4 steps + 4*5 phases; the two ranks of ddp-2, zero1-2,
  // zero2-2 and fsdp-2 all record; acc4's steps have 4 micro-batches of 4 phases and one
  // optimizer phase.
  const int recipe = cpu_recipe_row(read_json(dir_ + "/report.json")) ? 1 : 0;
  EXPECT_EQ(pushes, (4 + 8 + recipe) * (1 + 4 + 20) + (1 + 4 + 4 * (4 * 4 + 1))) << text.substr(0, 2000);
  EXPECT_EQ(pops, pushes);
  // A config's ranges are one process's: its run range, then stable step and phase names.
  EXPECT_NE(text.find("\tpush\tgpubench\tmlp/cpu/bf16\n"), std::string::npos) << text.substr(0, 2000);
  EXPECT_NE(text.find("\tpush\tgpubench\tbackward\n"), std::string::npos) << text.substr(0, 2000);
}

// A checkpoint that cannot be written (a full $TMPDIR; here a file-size limit, which any
// user can set: writes past 8 MiB, 16384 of sh's 512-byte blocks, fail with EFBIG) aborted the config's process from
// LibTorch's zip writer (signal 6, its stack trace): a failed row saying so, and the
// matrix goes on.
TEST(MatrixRunCheckpoint, ACheckpointThatCannotBeWrittenIsAFailedRowSayingSo) {
  const std::string dir = test_support::make_temp_dir("ckpt-full");
  const auto result = test_support::run_command(
      "sh -c 'ulimit -f 16384; trap \"\" XFSZ; exec " + std::string(GPUBENCH_EXE) +
      " --matrix mlp/cpu/fp32,cnn/cpu/fp32 --steps 2 --warmup 0 --format json --out " + dir + "/report.json'");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output.find("frame #"), std::string::npos) << "no LibTorch stack trace: " << result.output;
  const auto report = read_json(dir + "/report.json");
  const nlohmann::json* mlp = find_row(report, "mlp/cpu/fp32");
  ASSERT_NE(mlp, nullptr);
  EXPECT_EQ((*mlp)["status"], "failed");
  const std::string reason = (*mlp)["reason"];
  EXPECT_NE(reason.find("checkpoint round trip: cannot write '"), std::string::npos) << reason;
  EXPECT_NE(reason.find("File too large"), std::string::npos) << reason;
  const nlohmann::json* cnn = find_row(report, "cnn/cpu/fp32");  // 3.7 MB of checkpoint (with Adam's state): fits; mlp's is 22 MB
  ASSERT_NE(cnn, nullptr);
  EXPECT_EQ((*cnn)["status"], "ok") << (*cnn).dump();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpubench

namespace gpubench {
namespace {

// `--format table` fits the terminal: $COLUMNS when set (80 when nothing says, as through this
// pipe); standard output alone is checked (progress goes to stderr).
TEST(MatrixRunTable, TheTableFitsTheColumnsItIsGiven) {
  const std::string dir = test_support::make_temp_dir("matrix-table");
  const auto table_at = [&](const std::string& columns) {
    return test_support::run_command("(env " + columns + " CUDA_VISIBLE_DEVICES= " + GPUBENCH_EXE +
                                     " --matrix mlp/cpu/fp32,mlp/cpu/bf16,mlp/cuda/fp32 --steps 2 --warmup 0 --format "
                                     "table --out " + dir + "/report.json 2>/dev/null)");
  };
  for (const std::string& columns : {std::string("-u COLUMNS"), std::string("COLUMNS=120"), std::string("COLUMNS=200")}) {
    const auto run = table_at(columns);
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const std::size_t width = columns == "-u COLUMNS" ? 80 : std::stoul(columns.substr(8));
    std::istringstream lines(run.output);
    for (std::string line; std::getline(lines, line);) {  // characters, not bytes ("·" is two)
      const auto shown = std::count_if(line.begin(), line.end(), [](char c) { return (c & 0xC0) != 0x80; });
      EXPECT_LE(static_cast<std::size_t>(shown), width) << columns << ": " << line;
    }
    EXPECT_NE(run.output.find("mlp/cpu/bf16"), std::string::npos) << run.output;
    EXPECT_EQ(run.output.find("hidden at") == std::string::npos, width == 200) << columns << ":\n" << run.output;
  }
  // Two measured steps are a pair, not a spread: the interval is unknown (null), not zero.
  const auto report = read_json(dir + "/report.json");
  EXPECT_EQ(test_support::schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  const auto* fp32 = find_row(report, "mlp/cpu/fp32");
  ASSERT_NE(fp32, nullptr);
  EXPECT_TRUE((*fp32)["stopping"]["median_ci95_relative"].is_null()) << (*fp32)["stopping"];
}

}  // namespace
}  // namespace gpubench
