#include "bench/peer_process.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gpubench::bench {
namespace {

std::string own_executable() {
  char path[PATH_MAX];
  const ssize_t length = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (length <= 0) throw std::runtime_error(std::string("readlink /proc/self/exe: ") + std::strerror(errno));
  return std::string(path, static_cast<std::size_t>(length));
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("signal ") + strsignal(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace

PeerProcess::PeerProcess(const std::vector<std::string>& arguments) {
  // Everything the child needs is built before fork: between fork and exec a child of a
  // multi-threaded process may only make async-signal-safe calls.
  const std::string executable = own_executable();
  std::vector<std::string> storage{executable};
  storage.insert(storage.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& argument : storage) argv.push_back(argument.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();

  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(126);  // the parent died before prctl took effect
    ::execv(executable.c_str(), argv.data());
    ::_exit(127);
  }
}

PeerProcess::~PeerProcess() { stop(std::chrono::milliseconds(0)); }

std::string PeerProcess::stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return ended_;
  const auto deadline = std::chrono::steady_clock::now() + grace;
  int status = 0;
  while (true) {
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      ended_ = describe_status(status);
      break;
    }
    if (done < 0 && errno != EINTR) {
      ended_ = std::string("waitpid: ") + std::strerror(errno);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      ended_ = "killed after " + std::to_string(grace.count()) + " ms";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
  return ended_;
}

}  // namespace gpubench::bench
