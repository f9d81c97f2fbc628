#pragma once
#include <string>

namespace gpubench {

// Writes `text` to `path` so a reader sees the old file or the whole new one, never a
// torn one: write to a temp file beside it, flush + fsync, rename over. Throws
// std::runtime_error naming the path and the OS error.
void write_file_atomically(const std::string& path, const std::string& text);

// Throws UsageError if `path` cannot be created/written (checked before any long run, so
// a bad --out fails in a second, not after an hour of measurements).
void check_writable(const std::string& path, const std::string& flag_name);

// Reads a whole file; throws UsageError naming the path if it cannot be read.
std::string read_file(const std::string& path, const std::string& what);

}  // namespace gpubench
