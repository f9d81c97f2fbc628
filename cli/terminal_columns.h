#pragma once
#include <cstddef>

namespace gpubench {

// How many columns the tables printed to standard output may use: $COLUMNS when it holds a
// whole number (as ls, git and most tools honour it), else the terminal's own width when
// standard output is one, else 80. At least 20, so that a stray COLUMNS=1 still prints
// something legible.
std::size_t terminal_columns();

}  // namespace gpubench
