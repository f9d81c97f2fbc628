#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include "core/io/printable.h"

namespace gpubench {

// A string from an untrusted file (a tensor name, a shard name, a JSON value) cut down for
// an error message, quoted: a 100 MB header may hold one 100 MB name, and the message must
// stay a line. Control bytes are left to the CLI, which prints every message through
// printable().
inline std::string excerpt(std::string_view text, std::size_t limit = 120) {
  if (text.size() <= limit) return "'" + std::string(text) + "'";
  return "'" + std::string(text.substr(0, limit)) + "...' (" + std::to_string(text.size()) + " bytes)";
}

// A name from an untrusted file (a tensor's) for a message, unquoted: cut as excerpt() cuts
// and escaped (one_line: control bytes as \xNN, a newline as \n), so a NUL cannot end the
// message early and a newline cannot start a line that seems gpubench's own.
inline std::string shown_name(std::string_view name, std::size_t limit = 120) {
  if (name.size() <= limit) return one_line(name);
  return one_line(name.substr(0, limit)) + "... (" + std::to_string(name.size()) + " bytes)";
}

}  // namespace gpubench
