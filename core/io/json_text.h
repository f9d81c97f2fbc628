#pragma once
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "core/io/terminal_controls.h"

namespace gpubench {

// A report, result or trace as JSON text, never throwing on its strings: a byte that is
// not UTF-8 (a Latin-1 file name in --out, the command line, an OS message) is written
// as U+FFFD instead of losing the whole document to nlohmann's "invalid UTF-8 byte". DEL
// and the code points a terminal or viewer obeys unseen (io/terminal_controls.h), which
// JSON allows raw in a string, are written as \uXXXX escapes: `--format json` on a
// terminal, or the file in a pager, shows them instead of obeying them; the value read back
// is the same.
inline std::string json_text(const nlohmann::json& value, int indent = -1) {
  const std::string text = value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto lead = static_cast<unsigned char>(text[i]);
    // The dump is UTF-8: a lead byte says how long its sequence is.
    const std::size_t length = lead == 0x7F ? 1 : lead >= 0xC0 && lead < 0xE0 ? 2 : lead >= 0xE0 && lead < 0xF0 ? 3 : 0;
    if (length == 0 || i + length > text.size() ||
        (length > 1 && !is_hidden_control(code_point_of(std::string_view(text).substr(i, length))))) {
      out += text[i];
      continue;
    }
    char escaped[8];
    std::snprintf(escaped, sizeof(escaped), "\\u%04x",
                  length == 1 ? 0x7Fu : static_cast<unsigned>(code_point_of(std::string_view(text).substr(i, length))));
    out += escaped;
    i += length - 1;
  }
  return out;
}

}  // namespace gpubench
