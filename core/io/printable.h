#pragma once
#include <string>
#include <string_view>

namespace gpubench {

// `text` made safe for a terminal: control bytes (C0 but newline, DEL, and the C1 range
// U+0080..U+009F that some terminals also obey) and bytes that are not UTF-8 are shown as
// \xNN, so a string from an untrusted report or command line cannot move the cursor,
// retitle the window or ring the bell. Printable UTF-8 passes unchanged.
std::string printable(std::string_view text);

}  // namespace gpubench
