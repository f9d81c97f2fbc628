#include "core/io/printable.h"

#include <cstdio>

#include "core/io/terminal_controls.h"

namespace gpubench {
namespace {

// The length of the well-formed UTF-8 sequence at text[i] (RFC 3629: no overlongs, no
// surrogates, at most U+10FFFF), or 0 if the bytes there are not one.
std::size_t sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  else if (lead == 0xE0) length = 3, low = 0xA0;
  else if (lead >= 0xE1 && lead <= 0xEC) length = 3;
  else if (lead == 0xED) length = 3, high = 0x9F;
  else if (lead >= 0xEE && lead <= 0xEF) length = 3;
  else if (lead == 0xF0) length = 4, low = 0x90;
  else if (lead >= 0xF1 && lead <= 0xF3) length = 4;
  else if (lead == 0xF4) length = 4, high = 0x8F;
  else return 0;
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return length;
}

std::string escaped_text(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = sequence_length(text, i);
    if (lead == '\n' && !keep_newlines) {
      out += "\\n";
      ++i;
      continue;
    }
    const bool control = length == 1 && ((lead < 0x20 && lead != '\n') || lead == 0x7F);
    const bool hidden = (length == 2 || length == 3) && is_hidden_control(code_point_of(text.substr(i, length)));
    if (length == 0 || control || hidden) {
      const std::size_t bytes = length == 0 ? 1 : length;
      for (std::size_t k = 0; k < bytes; ++k) {
        char escaped[8];
        std::snprintf(escaped, sizeof(escaped), "\\x%02x", static_cast<unsigned char>(text[i + k]));
        out += escaped;
      }
      i += bytes;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

}  // namespace

std::string printable(std::string_view text) { return escaped_text(text, true); }

std::string one_line(std::string_view text) { return escaped_text(text, false); }

}  // namespace gpubench
