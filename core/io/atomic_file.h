#pragma once
#include <string>

namespace gpubench {

// Writes `text` to `path` so a reader sees the old file or the whole new one, never a
// torn one: write to a temp file beside it, flush + fsync, rename over. Only a regular file
// (or a new name) is replaced: a device or FIFO (/dev/null, /dev/stdout, a named pipe, or a
// link to one) is written through in place, any other symbolic link or a directory is
// refused. Throws std::runtime_error naming the path and the OS error.
void write_file_atomically(const std::string& path, const std::string& text);

// Whether write_file_atomically writes `path` through in place (a device or FIFO): there a
// second write would append a second document, or block on a FIFO whose reader has gone.
bool written_in_place(const std::string& path);

// Throws UsageError if `path` cannot be written as write_file_atomically will (checked
// before any long run, so a bad --out fails in a second, not after an hour of
// measurements): empty, a symbolic link, a directory, a missing or non-directory parent, a
// directory where the temp file cannot be created (read-only, /proc, name too long).
void check_writable(const std::string& path, const std::string& flag_name);

// Throws UsageError unless `path` is a folder (created if missing) in which this user can
// create files: a real probe file, so a pseudo file system (/proc) or a read-only mount
// is found before the run, even as root, whom access() lets through.
void check_writable_folder(const std::string& path, const std::string& flag_name);

// Reads a whole regular file; throws UsageError naming the path if it cannot be read or
// is not a regular file (a FIFO, device or directory).
std::string read_file(const std::string& path, const std::string& what);

}  // namespace gpubench
