#pragma once
// Runs a command line through the shell for end-to-end tests; captures stdout+stderr.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace gpubench::test_support {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

inline CommandResult run_command(const std::string& command_line) {
  CommandResult result;
  FILE* pipe = popen((command_line + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// A fresh directory under the system temp dir, removed by the caller if it cares.
inline std::string make_temp_dir(const std::string& tag) {
  std::string pattern = "/tmp/gpubench-test-" + tag + "-XXXXXX";
  return mkdtemp(pattern.data()) ? pattern : "/tmp";
}

}  // namespace gpubench::test_support
