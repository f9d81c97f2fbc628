// Hardening round 3 (issue 40) through the CLI: closed standard streams, a reader that goes
// away, control bytes in printed names, a config too large for this machine's memory.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/report_json.h"
#include "support/run_command.h"

namespace gpubench {
namespace {

using test_support::run_command;

const std::string kRun = " --steps 2 --warmup 1 --threads 1 --batch-size 64";

// Closed at start, a stream's fd would go to the DDP store's socket and a progress line into
// it (SIGPIPE, no report): held on /dev/null, the report written; a closed stdout is exit 4.
TEST(StandardStreams, ClosedStreamsKeepTheReportAndAClosedStdoutIsExitFour) {
  const std::string dir = test_support::make_temp_dir("streams");
  const std::string exe = GPUBENCH_EXE;
  for (const auto& [redirect, code] : std::vector<std::pair<std::string, int>>{{"2>&-", 0}, {">&-", 4}, {"2>&- >&-", 4}}) {
    const std::string out = dir + "/r" + std::to_string(code) + std::to_string(redirect.size()) + ".json";
    const auto run = run_command("sh -c '" + exe + " --matrix mlp/cpu/fp32/ddp-2,mlp/cpu/fp32" + kRun + " --out " + out +
                                 " " + redirect + "; echo exit=$?'");
    EXPECT_NE(run.output.find("exit=" + std::to_string(code)), std::string::npos) << redirect << ": " << run.output;
    ASSERT_TRUE(std::filesystem::exists(out)) << redirect << ": no report";
    const auto report = test_support::read_json(out);
    for (const auto& row : report["results"]) EXPECT_EQ(row["status"], "ok") << redirect << ": " << row.dump();
  }
  const auto nproc = run_command("sh -c '" + exe + " --nproc 2 --matrix mlp/cpu/fp32/ddp-2" + kRun + " --out " + dir +
                                 "/nproc.json 2>&-; echo exit=$?'");
  EXPECT_NE(nproc.output.find("exit=0"), std::string::npos) << nproc.output;
  EXPECT_TRUE(std::filesystem::exists(dir + "/nproc.json"));
}

// A reader that goes away (| head -1) is a write error, exit 4, not death by SIGPIPE (141).
TEST(StandardStreams, AReaderThatGoesAwayIsExitFour) {
  const std::string exe = GPUBENCH_EXE;
  // The reader is gone before gpubench writes: --list's 32 kB fit a pipe's buffer, so a reader
  // that read a line first (head -1) left the writes to race its exit, and under load they won.
  const auto list =
      run_command("bash -c '{ sleep 0.3; " + exe + " --list --matrix all; } | true; echo exit=${PIPESTATUS[0]}'");
  EXPECT_NE(list.output.find("exit=4"), std::string::npos) << list.output;
  const std::string base = std::string(GPUBENCH_SOURCE_DIR) + "/reports/examples/cpu-quick.json";
  const auto compare =
      run_command("bash -c '" + exe + " compare " + base + " " + base + " --format json | true; echo exit=${PIPESTATUS[0]}'");
  EXPECT_NE(compare.output.find("exit=4"), std::string::npos) << compare.output;
}

// Names from outside (an --out holding an escape sequence) are printed escaped on stderr.
TEST(StandardStreams, NamesFromOutsideArePrintedEscaped) {
  const std::string dir = test_support::make_temp_dir("escapes");
  const std::string out = dir + "/r\x1b[2J.json";
  // stdout is the table: stderr's lines are what is checked (both come back together).
  const auto run = run_command(std::string(GPUBENCH_EXE) + " --matrix mlp/cpu/fp32 --steps 1 --warmup 0 --format table --out '" +
                               out + "'");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output.find('\x1b'), std::string::npos) << "a raw ESC reached the terminal";
  EXPECT_NE(run.output.find("report written to " + dir + "/r\\x1b[2J.json"), std::string::npos);
}

// A config whose memory is knowable and does not fit is refused before it runs, with the
// estimate, never left to the OOM killer ("child process killed by signal 9").
TEST(StandardStreams, AConfigThatCannotFitTheHostIsSkippedWithItsEstimate) {
  const auto list = run_command(std::string(GPUBENCH_EXE) + " --list --matrix transformer/cpu/fp32 --batch-size 2048");
  ASSERT_EQ(list.exit_code, 0) << list.output;
  if (list.output.find("runs here") != std::string::npos) GTEST_SKIP() << "this machine holds it: " << list.output;
  EXPECT_NE(list.output.find("skip: needs ~"), std::string::npos) << list.output;
  EXPECT_NE(list.output.find("activations"), std::string::npos) << list.output;
}

}  // namespace
}  // namespace gpubench
