#pragma once
// A whole file's bytes, for tests that check what a run wrote ("" when it cannot be read).
#include <fstream>
#include <sstream>
#include <string>

namespace gpubench::test_support {

inline std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace gpubench::test_support
