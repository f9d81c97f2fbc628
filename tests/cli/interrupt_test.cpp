// End to end: a signal to gpubench, and gpubench killed outright. The first SIGINT stops the
// running config, marks the rest `not run: interrupted`, writes the report and exits 130,
// with no child left; a SIGKILLed gpubench takes its children (DDP ranks too) with it.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/report_json.h"
#include "support/run_command.h"
#include "support/file_text.h"

namespace gpubench {
namespace {

using Clock = std::chrono::steady_clock;

using test_support::file_text;

// Processes whose environment carries `marker` (this test's gpubench and its children only:
// other tests may run gpubench at the same time).
std::vector<pid_t> processes_marked(const std::string& marker, const std::string& in_cmdline = "") {
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (file_text(entry.path() / "environ").find(marker) == std::string::npos) continue;
    std::string cmdline = file_text(entry.path() / "cmdline");
    for (char& c : cmdline)
      if (c == '\0') c = ' ';
    if (cmdline.find(in_cmdline) != std::string::npos) found.push_back(std::stoi(name));
  }
  return found;
}

// Waits until `done()` or `limit`; true if done.
template <typename Done>
bool wait_until(Done done, std::chrono::seconds limit) {
  const auto deadline = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return true;
}

class Interrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_support::make_temp_dir("interrupt");
    marker_ = "GPUBENCH_TEST_MARKER=" + dir_;
  }

  // Starts gpubench with `args` (stdout and stderr to dir/log), marked and with its own TMPDIR.
  pid_t start(std::vector<std::string> args) {
    args.insert(args.begin(), GPUBENCH_EXE);
    const pid_t pid = fork();
    if (pid == 0) {
      const int log = ::open((dir_ + "/log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(log, 1);
      ::dup2(log, 2);
      ::putenv(const_cast<char*>(marker_.c_str()));
      ::setenv("CUDA_VISIBLE_DEVICES", "", 1);
      ::setenv("TMPDIR", dir_.c_str(), 1);  // a SIGKILLed gpubench leaves its private directory there
      std::vector<char*> argv;
      for (auto& arg : args) argv.push_back(arg.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    return pid;
  }

  // Exit status of `pid` within `limit`, -1 if it did not exit (it is then killed).
  static int exit_status(pid_t pid, std::chrono::seconds limit) {
    int status = 0;
    if (!wait_until([&] { return ::waitpid(pid, &status, WNOHANG) == pid; }, limit)) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    return status;
  }

  // Sends `signal` to `pid`, expects it to exit with `code` within `limit`, leaving no
  // marked process behind.
  void expect_exit_after_signal(pid_t pid, int signal, int code, std::chrono::seconds limit) {
    ::kill(pid, signal);
    const int status = exit_status(pid, limit);
    EXPECT_TRUE(WIFEXITED(status)) << status << "\n" << file_text(dir_ + "/log");
    if (WIFEXITED(status)) {
      EXPECT_EQ(WEXITSTATUS(status), code) << file_text(dir_ + "/log");
    }
    EXPECT_TRUE(processes_marked(marker_).empty()) << "a child or rank outlived gpubench";
  }

  // gpubench on two long CPU configs, once the first one's child runs.
  pid_t start_two_configs_and_wait_for_training() {
    const pid_t pid = start({"--matrix", "mlp/cpu/fp32,cnn/cpu/fp32", "--steps", "1000000", "--warmup", "0",
                             "--out", dir_ + "/report.json"});
    EXPECT_TRUE(wait_until([&] { return !processes_marked(marker_, "--child-config").empty(); },
                           std::chrono::seconds(30)))
        << file_text(dir_ + "/log");
    return pid;
  }

  // The report of start_two_configs_and_wait_for_training: the second config never ran.
  void expect_second_config_not_run(const std::string& signal_name) {
    const auto report = test_support::read_json(dir_ + "/report.json");
    ASSERT_EQ(report["results"].size(), 2u);
    EXPECT_EQ(report["results"][1]["reason"], "not run: interrupted (" + signal_name + ")");
  }

  std::string dir_, marker_;
};

TEST_F(Interrupt, FirstCtrlCStopsTheRunningConfigReportsTheRestAndExits130) {
  const pid_t gpubench = start({"--matrix", "mlp/cpu/fp32,cnn/cpu/fp32,mlp/cpu/bf16", "--steps", "1000000",
                                "--warmup", "0", "--format", "markdown", "--out", dir_ + "/report.json"});
  ASSERT_TRUE(wait_until([&] { return !processes_marked(marker_, "--child-config mlp/cpu/fp32").empty(); },
                         std::chrono::seconds(30)))
      << file_text(dir_ + "/log");
  std::this_thread::sleep_for(std::chrono::seconds(1));  // the child is training now
  expect_exit_after_signal(gpubench, SIGINT, 130, std::chrono::seconds(30));

  const auto report = test_support::read_json(dir_ + "/report.json");
  ASSERT_EQ(report["results"].size(), 3u) << report.dump(2);
  EXPECT_EQ(report["results"][0]["status"], "failed");
  EXPECT_NE(report["results"][0]["reason"].get<std::string>().find("interrupted"), std::string::npos);
  for (int i : {1, 2}) {
    EXPECT_EQ(report["results"][i]["status"], "skipped");
    EXPECT_EQ(report["results"][i]["reason"], "not run: interrupted (SIGINT)");
  }
  EXPECT_NE(file_text(dir_ + "/log").find("gpubench: interrupted by SIGINT"), std::string::npos) << file_text(dir_ + "/log");
}

TEST_F(Interrupt, SigtermDoesTheSameAndExits143) {
  const pid_t gpubench = start_two_configs_and_wait_for_training();
  expect_exit_after_signal(gpubench, SIGTERM, 143, std::chrono::seconds(30));
  expect_second_config_not_run("SIGTERM");
}

// A dropped SSH session (SIGHUP) is a stop request like SIGTERM, not a death with no report.
TEST_F(Interrupt, SighupDoesTheSameAndExits129) {
  const pid_t gpubench = start_two_configs_and_wait_for_training();
  expect_exit_after_signal(gpubench, SIGHUP, 129, std::chrono::seconds(30));
  expect_second_config_not_run("SIGHUP");
}

// 5,115 ids (the audit's matrix): the ids after the stopped config are marked not run and
// the report written once, within seconds; it was rewritten once per id left (~250 s).
TEST_F(Interrupt, AMatrixOfThousandsOfIdsEndsWithinSecondsOfASignal) {
  std::string spec = "mlp/cpu/fp32";
  for (const std::string base : {"mlp/cpu/fp32", "mlp/cpu/bf16", "cnn/cpu/fp32", "cnn/cpu/bf16", "transformer/cpu/fp32"})
    for (int k = 2; k <= 1024; ++k) spec += "," + base + "/acc" + std::to_string(k);
  const pid_t gpubench = start({"--matrix", spec, "--steps", "1000000", "--warmup", "0", "--format", "json",
                                "--out", dir_ + "/report.json"});
  ASSERT_TRUE(wait_until([&] { return !processes_marked(marker_, "--child-config mlp/cpu/fp32 ").empty(); },
                         std::chrono::seconds(120)))
      << file_text(dir_ + "/log");
  const auto signalled = Clock::now();
  expect_exit_after_signal(gpubench, SIGTERM, 143, std::chrono::seconds(60));
  std::cout << "exited " << std::chrono::duration<double>(Clock::now() - signalled).count() << " s after SIGTERM\n";
  const auto report = test_support::read_json(dir_ + "/report.json");
  ASSERT_EQ(report["results"].size(), 5116u);
  EXPECT_EQ(report["results"][5115]["reason"], "not run: interrupted (SIGTERM)");
}

// gpubench tune: a signal stops the running candidate as in the matrix, then the search;
// the search so far is written, the private folder in TMPDIR removed, and the exit code is
// the signal's (it died by the signal, with neither).
TEST_F(Interrupt, TuneStopsItsCandidateWritesThePartialSearchAndExitsBySignal) {
  for (const auto& [signal, name] : {std::pair{SIGINT, "SIGINT"}, std::pair{SIGTERM, "SIGTERM"}, std::pair{SIGHUP, "SIGHUP"}}) {
    SCOPED_TRACE(name);
    const std::string out = dir_ + "/search-" + name + ".json";
    const pid_t gpubench = start({"tune", "mlp", "--steps", "1000000", "--warmup", "0", "--threads", "1", "--out", out});
    ASSERT_TRUE(wait_until([&] { return !processes_marked(marker_, "--child-config").empty(); }, std::chrono::seconds(30)))
        << file_text(dir_ + "/log");
    std::this_thread::sleep_for(std::chrono::seconds(1));  // the candidate is training now
    expect_exit_after_signal(gpubench, signal, 128 + signal, std::chrono::seconds(30));
    const auto report = test_support::read_json(out);
    EXPECT_EQ(report["tune"]["stopped"], "interrupted (" + std::string(name) + ")") << report["tune"].dump(1);
    ASSERT_EQ(report["tune"]["steps"].size(), 1u) << "the plain config, stopped; nothing after it";
    EXPECT_NE(report["results"][0]["reason"].get<std::string>().find("interrupted"), std::string::npos);
    EXPECT_NE(file_text(dir_ + "/log").find(std::string("gpubench: interrupted by ") + name), std::string::npos)
        << file_text(dir_ + "/log");
    for (const auto& entry : std::filesystem::directory_iterator(dir_))
      EXPECT_NE(entry.path().filename().string().rfind("gpubench-", 0), 0u) << "left in TMPDIR: " << entry.path();
  }
}

// coreutils timeout (and a terminal plus a launcher) deliver one request twice: still one
// request, the report is written.
TEST_F(Interrupt, ASignalDeliveredTwiceAtOnceIsOneRequest) {
  const pid_t gpubench = start_two_configs_and_wait_for_training();
  ::kill(gpubench, SIGINT);
  expect_exit_after_signal(gpubench, SIGINT, 130, std::chrono::seconds(30));
  expect_second_config_not_run("SIGINT");
}

// --nproc: Ctrl-C reaches the launcher only (the ranks have their own process group); it
// passes it on, each rank stops its config, rank 0 writes the report.
TEST_F(Interrupt, CtrlCToAnNprocLauncherStopsEveryRankAndKeepsTheReport) {
  const pid_t launcher = start({"--nproc", "2", "--matrix", "mlp/cpu/fp32/ddp-2,mlp/cpu/fp32", "--steps", "1000000",
                                "--warmup", "0", "--out", dir_ + "/report.json"});
  ASSERT_TRUE(wait_until([&] { return processes_marked(marker_, "--child-config").size() == 2; },
                         std::chrono::seconds(60)))
      << file_text(dir_ + "/log");
  std::this_thread::sleep_for(std::chrono::seconds(1));
  expect_exit_after_signal(launcher, SIGINT, 130, std::chrono::seconds(60));
  const auto report = test_support::read_json(dir_ + "/report.json");
  ASSERT_EQ(report["results"].size(), 2u) << report.dump(2);
  EXPECT_EQ(report["results"][0]["status"], "failed");
  EXPECT_NE(report["results"][0]["reason"].get<std::string>().find("interrupted"), std::string::npos)
      << report["results"][0]["reason"];
  EXPECT_EQ(report["results"][1]["reason"], "not run: interrupted (SIGINT)");
}

// --nproc with a stalled rank (SIGSTOP: alive, silent, deaf to SIGTERM): rank 0's
// collective times out, it fails the config, writes the report and exits; the launcher
// waited forever for rank 1 (after_peer_failure_s = 1e9). Now it kills a rank still
// running 8 s after rank 0 exited, and exits with rank 0's code. The config itself (the
// report) ends within --comm-timeout + 10 s of the stall (it took 36-38 s at 3 s).
TEST_F(Interrupt, AStalledRankUnderNprocEndsOnceRankZeroHasReported) {
  const pid_t launcher = start({"--nproc", "2", "--matrix", "mlp/cpu/fp32/ddp-2", "--steps", "1000000", "--warmup", "0",
                                "--comm-timeout", "3", "--out", dir_ + "/report.json"});
  ASSERT_TRUE(wait_until([&] { return processes_marked(marker_, "--child-config").size() == 2; },
                         std::chrono::seconds(60)))
      << file_text(dir_ + "/log");
  std::this_thread::sleep_for(std::chrono::seconds(2));  // training, in step
  std::vector<pid_t> rank1;
  for (const pid_t pid : processes_marked(marker_))
    if (file_text("/proc/" + std::to_string(pid) + "/environ").find(std::string("\0RANK=1\0", 8)) != std::string::npos)
      rank1.push_back(pid);
  ASSERT_FALSE(rank1.empty()) << "rank 1's processes";
  for (const pid_t pid : rank1) ::kill(pid, SIGSTOP);
  const auto stopped = Clock::now();
  const int status = exit_status(launcher, std::chrono::seconds(150));
  const double took_s = std::chrono::duration<double>(Clock::now() - stopped).count();
  for (const pid_t pid : rank1) ::kill(pid, SIGKILL);  // if the launcher failed to
  ASSERT_TRUE(WIFEXITED(status)) << "the launcher still waited after 150 s\n" << file_text(dir_ + "/log");
  EXPECT_EQ(WEXITSTATUS(status), 0) << "rank 0's code: the failed config is a row" << file_text(dir_ + "/log");
  std::cout << "launcher ended " << took_s << " s after rank 1 stalled\n";
  EXPECT_LE(took_s, 3 + 10 + 8 + 15) << "comm-timeout + 10 s to the report, 8 s to the kill, slack for a loaded machine";
  EXPECT_NE(file_text(dir_ + "/log").find("rank 1 of 2 was still running 8 s after rank 0 had written the report"),
            std::string::npos)
      << file_text(dir_ + "/log");
  const auto report = test_support::read_json(dir_ + "/report.json");
  ASSERT_EQ(report["results"].size(), 1u);
  EXPECT_EQ(report["results"][0]["status"], "failed") << report["results"][0].dump();
  EXPECT_TRUE(wait_until([&] { return processes_marked(marker_).empty(); }, std::chrono::seconds(10)));
}

TEST_F(Interrupt, RanksOfAKilledGpubenchDieWithinSeconds) {
  const pid_t gpubench = start({"--matrix", "mlp/cpu/fp32/ddp-2", "--steps", "1000000", "--warmup", "0",
                                "--out", dir_ + "/report.json"});
  ASSERT_TRUE(wait_until([&] { return processes_marked(marker_, "--child-config").size() == 2; },
                         std::chrono::seconds(30)))
      << file_text(dir_ + "/log");
  ::kill(gpubench, SIGKILL);
  ::waitpid(gpubench, nullptr, 0);
  const auto start = Clock::now();
  EXPECT_TRUE(wait_until([&] { return processes_marked(marker_).empty(); }, std::chrono::seconds(10)))
      << "ranks still running 10 s after their parent was killed";
  std::cout << "orphaned ranks gone after "
            << std::chrono::duration<double>(Clock::now() - start).count() << " s\n";
}

}  // namespace
}  // namespace gpubench
