#include "cli/terminal_columns.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "reports/fit_table.h"

namespace gpubench {

std::size_t terminal_columns() {
  constexpr std::size_t kNarrowest = 20;
  if (const char* env = std::getenv("COLUMNS"); env != nullptr && *env != '\0') {
    const std::string text = env;
    if (text.size() <= 6 && text.find_first_not_of("0123456789") == std::string::npos)
      return std::max(kNarrowest, static_cast<std::size_t>(std::stoul(text)));
  }
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return std::max(kNarrowest, static_cast<std::size_t>(size.ws_col));
  return kDefaultTerminalColumns;
}

}  // namespace gpubench
