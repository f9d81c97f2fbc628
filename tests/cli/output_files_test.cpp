// End to end: what --out does to what is already at its path. A regular file is replaced
// atomically; a device is written through, never replaced (as root, replacing /dev/null
// would break the machine); a symbolic link is refused before anything is measured; a
// final write that fails still prints the measurements and exits 4.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/file_text.h"

namespace gpubench {
namespace {

using test_support::run_command;

const std::string kQuickMarkdownRun = std::string(GPUBENCH_EXE) + " --matrix mlp/cpu/fp32 --steps 2 --warmup 0 --format markdown";

using test_support::file_text;

TEST(OutputFiles, ASymbolicLinkIsRefusedAndWhatItPointsToIsUntouched) {
  const std::string dir = test_support::make_temp_dir("out-link");
  std::ofstream(dir + "/victim") << "keep";
  ASSERT_EQ(::symlink((dir + "/victim").c_str(), (dir + "/report.json").c_str()), 0);
  const auto result = run_command(kQuickMarkdownRun + " --out " + dir + "/report.json");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("is a symbolic link"), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("samples/s"), std::string::npos) << "nothing was measured: " << result.output;
  EXPECT_EQ(file_text(dir + "/victim"), "keep");
  struct stat info {};
  ASSERT_EQ(::lstat((dir + "/report.json").c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
}

TEST(OutputFiles, ADeviceIsWrittenThroughNotReplaced) {
  struct stat before {};
  ASSERT_EQ(::lstat("/dev/null", &before), 0);
  ASSERT_TRUE(S_ISCHR(before.st_mode));
  const auto result = run_command(kQuickMarkdownRun + " --out /dev/null");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  struct stat after {};
  ASSERT_EQ(::lstat("/dev/null", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode)) << "/dev/null was replaced";
  EXPECT_EQ(after.st_rdev, before.st_rdev);
}

// /dev/stdout is a link to /proc/self/fd/1 (here a pipe): written through, one document.
TEST(OutputFiles, ALinkToAStreamIsWrittenThrough) {
  const auto result = run_command(kQuickMarkdownRun + " --out /dev/stdout");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("\"schema_version\""), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("| mlp/cpu/fp32 | ok |"), std::string::npos) << result.output;
}

// With standard output redirected to a file, /dev/stdout is a link to a regular file; it
// was refused as one, though it names this process's own stream. Written through it, at
// its offset: the report, then the table.
TEST(OutputFiles, StandardOutputRedirectedToAFileIsWrittenThrough) {
  const std::string file = test_support::make_temp_dir("out-stdout-file") + "/out.txt";
  const auto result = run_command("{ " + kQuickMarkdownRun + " --out /dev/stdout > " + file + "; }");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  const std::string text = file_text(file);
  EXPECT_NE(text.find("\"schema_version\""), std::string::npos) << text;
  EXPECT_GT(text.find("| mlp/cpu/fp32 | ok |"), text.find("\"schema_version\"")) << text;
}

// Without a controlling terminal /dev/tty cannot be opened: found before measuring, and
// said as that, not as "a named pipe with no reader".
TEST(OutputFiles, ATerminalThatIsNotThereIsRefusedUpFront) {
  const auto result = run_command("setsid -w " + kQuickMarkdownRun + " --out /dev/tty < /dev/null");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--out '/dev/tty' cannot be written: No such device or address (this process has no "
                               "terminal)"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("samples/s"), std::string::npos) << result.output;
}

// A named pipe gets the final report once: a reader sees exactly one JSON document (a
// rewrite per config would append more, or block once the first reader has gone).
TEST(OutputFiles, ANamedPipeGetsOneReport) {
  const std::string dir = test_support::make_temp_dir("out-fifo");
  ASSERT_EQ(::mkfifo((dir + "/pipe").c_str(), 0600), 0);
  const auto result = run_command("(cat " + dir + "/pipe > " + dir + "/copy.json &); " +
                                  std::string(GPUBENCH_EXE) +
                                  " --matrix mlp/cpu/fp32,mlp/cpu/bf16 --steps 2 --warmup 0 --format json --out " + dir +
                                  "/pipe >/dev/null");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the reader's last bytes
  const auto report = nlohmann::json::parse(file_text(dir + "/copy.json"));  // throws on two documents
  EXPECT_EQ(report["results"].size(), 2u);
}

TEST(OutputFiles, ANamedPipeNobodyReadsFailsInsteadOfHanging) {
  const std::string dir = test_support::make_temp_dir("out-fifo-alone");
  ASSERT_EQ(::mkfifo((dir + "/pipe").c_str(), 0600), 0);
  const auto result = run_command("timeout 120 " + kQuickMarkdownRun + " --out " + dir + "/pipe");
  EXPECT_EQ(result.exit_code, 4) << result.output;
  EXPECT_NE(result.output.find("a named pipe with no reader"), std::string::npos) << result.output;
}

TEST(OutputFiles, StandardOutputThatCannotBeWrittenIsAnError) {
  // The group keeps stderr on the captured pipe while stdout goes to the full device.
  const auto result = run_command("{ " + std::string(GPUBENCH_EXE) + " --matrix all --list > /dev/full; }");
  EXPECT_EQ(result.exit_code, 4) << result.output;
  EXPECT_NE(result.output.find("cannot write to standard output"), std::string::npos) << result.output;
}

TEST(OutputFiles, AFinalWriteThatFailsStillPrintsTheTableAndExitsFour) {
  struct stat full {};
  if (::lstat("/dev/full", &full) != 0 || !S_ISCHR(full.st_mode)) GTEST_SKIP() << "no /dev/full here";
  const auto result = run_command(kQuickMarkdownRun + " --out /dev/full");
  EXPECT_EQ(result.exit_code, 4) << result.output;
  EXPECT_NE(result.output.find("| mlp/cpu/fp32 | ok |"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("gpubench: error: report not written: cannot write '/dev/full': No space left"),
            std::string::npos)
      << result.output;
}

// A full TMPDIR (where the run's private folder is): the config's child cannot write its
// result. Its row said "exit code 4 before writing a result"; it names the folder and that
// its file system is full. A real tmpfs, filled; needs root (mount), skipped elsewhere.
TEST(OutputFiles, AFullTmpdirIsNamedAsTheCauseOfAnUnwrittenResult) {
  const std::string dir = test_support::make_temp_dir("full-tmpdir"), tmp = dir + "/tmp";
  ::mkdir(tmp.c_str(), 0700);
  if (run_command("mount -t tmpfs -o size=256k tmpfs " + tmp).exit_code != 0) GTEST_SKIP() << "cannot mount a tmpfs here";
  run_command("dd if=/dev/zero of=" + tmp + "/fill bs=4k");  // until it is full
  const auto result = run_command("TMPDIR=" + tmp + " " + kQuickMarkdownRun + " --checkpoint-check off --out " + dir + "/r.json");
  run_command("umount " + tmp);
  EXPECT_EQ(result.exit_code, 0) << "a failed config is a row: " << result.output;
  EXPECT_NE(result.output.find("could not write its result in the run's private folder '" + tmp + "/gpubench-"),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("(in TMPDIR '" + tmp + "'): that file system is full"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace gpubench
