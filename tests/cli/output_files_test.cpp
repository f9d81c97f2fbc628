// End to end: what --out does to what is already at its path. A regular file is replaced
// atomically; a device is written through, never replaced (as root, replacing /dev/null
// would break the machine); a symbolic link is refused before anything is measured; a
// final write that fails still prints the measurements and exits 4; a file another run is
// writing is refused, naming that run.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
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

// Issue 61, item 12: run A beside runs B naming the same --out and --trace said "report
// written" of a file holding only B's skipped row, and a trace of 0 events. Now a run
// locks both (OUT.lock, flock) from its output check to its last write, and a second one
// is refused at once, naming the holder. Held here as a running gpubench holds it.
TEST(OutputFiles, AnOutputAnotherRunIsWritingIsRefusedNamingItsPid) {
  const std::string dir = test_support::make_temp_dir("out-locked");
  for (const std::string flag : {"--out", "--trace"}) {
    const std::string path = dir + "/busy" + (flag == "--out" ? ".json" : ".trace.json");
    const int fd = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
    const std::string pid = std::to_string(::getpid()) + "\n";
    ASSERT_EQ(::write(fd, pid.data(), pid.size()), static_cast<ssize_t>(pid.size()));
    const std::string other = flag == "--out" ? " --trace " + dir + "/t.json" : " --out " + dir + "/r.json";
    const auto result = run_command(kQuickMarkdownRun + " " + flag + " " + path + other);
    ::close(fd);
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("gpubench: error: " + flag + " '" + path + "': another gpubench (pid " +
                                 std::to_string(::getpid()) + ") is writing '" + path + "'"),
              std::string::npos)
        << result.output;
    EXPECT_EQ(result.output.find("samples/s"), std::string::npos) << "refused before measuring: " << result.output;
    EXPECT_FALSE(std::filesystem::exists(path)) << flag;
  }
}

// Two real runs: the second is refused while the first (stopped, holding its lock) runs; the
// first then writes its own rows, and leaves no lock file behind.
TEST(OutputFiles, TwoRealRunsOnOneOutNeverMixTheirRows) {
  const std::string dir = test_support::make_temp_dir("out-two-runs");
  const std::string paths = " --out " + dir + "/r.json --trace " + dir + "/t.json";
  const pid_t first = ::fork();
  if (first == 0) {
    ::execl("/bin/sh", "sh", "-c", ("exec " + kQuickMarkdownRun + paths + " >" + dir + "/first.log 2>&1").c_str(), nullptr);
    ::_exit(127);
  }
  ASSERT_GT(first, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (file_text(dir + "/r.json.lock") != std::to_string(first) + "\n" && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(first, SIGSTOP);  // holds its lock for as long as the second run needs
  const auto second = run_command(kQuickMarkdownRun + paths);
  ::kill(first, SIGCONT);
  int status = 0;
  ::waitpid(first, &status, 0);
  EXPECT_EQ(second.exit_code, 2) << second.output;
  EXPECT_NE(second.output.find("another gpubench (pid " + std::to_string(first) + ") is writing"), std::string::npos)
      << second.output;
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << file_text(dir + "/first.log");
  const auto report = nlohmann::json::parse(file_text(dir + "/r.json"));
  ASSERT_EQ(report["results"].size(), 1u);
  EXPECT_EQ(report["results"][0]["config_id"], "mlp/cpu/fp32");
  EXPECT_EQ(report["results"][0]["status"], "ok");
  EXPECT_GT(nlohmann::json::parse(file_text(dir + "/t.json"))["traceEvents"].size(), 0u);
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.json.lock"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/t.json.lock"));
}

}  // namespace
}  // namespace gpubench
