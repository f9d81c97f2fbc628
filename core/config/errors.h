#pragma once
#include <stdexcept>
#include <string>

namespace gpubench {

// Bad input from the user (flag, config id, data file). The CLI turns it into exit code 2.
// The message names the bad value and what was expected.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace gpubench
