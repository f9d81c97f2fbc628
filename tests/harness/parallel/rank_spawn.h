#pragma once
// Starts a process with extra environment variables and its stderr in a file, and waits
// for it with a deadline: the multi-rank tests need the pids (to kill a rank) and bounds.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <torch/torch.h>

extern char** environ;

namespace gpubench::test_support {

inline pid_t spawn_with_env(const std::vector<std::string>& argv, const std::map<std::string, std::string>& extra,
                            const std::string& stderr_path) {
  std::vector<std::string> env_strings;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    if (extra.count(text.substr(0, text.find('='))) == 0) env_strings.push_back(text);
  }
  for (const auto& [name, value] : extra) env_strings.push_back(name + "=" + value);
  std::vector<std::string> args = argv;
  std::vector<char*> arg_ptrs, env_ptrs;
  for (auto& arg : args) arg_ptrs.push_back(arg.data());
  arg_ptrs.push_back(nullptr);
  for (auto& entry : env_strings) env_ptrs.push_back(entry.data());
  env_ptrs.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, arg_ptrs[0], &actions, nullptr, arg_ptrs.data(), env_ptrs.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

// The exit code (128 + signal when killed), or -1 if still running at the deadline (then killed).
inline int wait_with_deadline(pid_t pid, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The run's secret these tests give their ranks, as gpubench's launcher gives its own
// (harness/parallel/run_secret.h): the ranks' numbers cross the store sealed with it.
constexpr const char* kTestRunSecret = "test-run-secret-0123456789abcdef";

// A rank's process may take this long on a loaded 2-core machine (LibTorch starts slowly).
constexpr double kProcessDeadline_s = 180;

// |a - b| / |b| over whole tensors: how far two runs' parameters ended apart.
inline double relative_difference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).norm().item<double>() / b.norm().item<double>();
}

}  // namespace gpubench::test_support
