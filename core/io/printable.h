#pragma once
#include <string>
#include <string_view>

namespace gpubench {

// `text` made safe for a terminal: control bytes (C0 but newline, DEL), the code points a
// terminal or viewer obeys unseen (io/terminal_controls.h: C1 controls, U+2028/U+2029, the
// bidirectional controls) and bytes that are not UTF-8 are shown as \xNN (each byte of the
// sequence), so a string from an untrusted report or command line cannot move the cursor,
// retitle the window, ring the bell or reorder the line. Printable UTF-8 passes unchanged.
std::string printable(std::string_view text);

// printable(), and a newline shown as \n: for a string from a report, a file name or a
// command line placed on one line of output (a table cell, a list item, a progress line),
// where a raw newline would start a line that seems to be the program's own (a forged
// "Result: 0 regressions").
std::string one_line(std::string_view text);

}  // namespace gpubench
