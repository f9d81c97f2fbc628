#pragma once
// The code points a terminal, an editor or a CI page obeys instead of showing: what no text
// from a report, a command line or a file name may carry raw to a reader (io/printable.h,
// io/json_text.h escape them).
#include <cstddef>
#include <string_view>

namespace gpubench {

// The code point of the well-formed UTF-8 sequence `sequence` (2 or 3 bytes; the caller
// checked it is one), or 0.
inline char32_t code_point_of(std::string_view sequence) {
  const auto byte = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(sequence[k])); };
  if (sequence.size() == 2) return ((byte(0) & 0x1F) << 6) | (byte(1) & 0x3F);
  if (sequence.size() == 3) return ((byte(0) & 0x0F) << 12) | ((byte(1) & 0x3F) << 6) | (byte(2) & 0x3F);
  return 0;
}

// C1 controls (U+0080..U+009F: U+009B is CSI, U+0085 a newline to some), the line and
// paragraph separators (U+2028, U+2029: a new line in editors, JavaScript and some
// terminals), and the bidirectional controls (U+061C, U+200E, U+200F, U+202A..U+202E,
// U+2066..U+2069), which reorder the text after them: "Result: 3 regressions" can be made
// to read otherwise, a file name to end in another extension.
inline bool is_hidden_control(char32_t c) {
  return (c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029 || c == 0x061C || c == 0x200E || c == 0x200F ||
         (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

}  // namespace gpubench
