#pragma once
// Splitting and joining the '/'-, '.'- and ','-separated names the project uses (config
// ids, ceiling paths, benchmark names, lists in messages).
#include <string>
#include <vector>

namespace gpubench {

// Every part between separators, empty ones included ("a//b." -> a, "", b, ""): a caller
// that validates names sees the empty part instead of having it dropped.
inline std::vector<std::string> split_text(const std::string& text, char separator) {
  std::vector<std::string> parts(1);
  for (const char c : text) {
    if (c == separator)
      parts.emplace_back();
    else
      parts.back() += c;
  }
  if (text.empty()) parts.clear();
  return parts;
}

inline std::string join_text(const std::vector<std::string>& parts, const std::string& separator) {
  std::string text;
  for (std::size_t i = 0; i < parts.size(); ++i) text += (i ? separator : "") + parts[i];
  return text;
}

}  // namespace gpubench
