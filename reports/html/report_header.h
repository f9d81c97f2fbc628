#pragma once
// A report's created_utc read without building the whole document: a history of 500
// reports is put in time order before any is loaded, so only one report is in memory at a
// time (gpubench writes keys in name order: created_utc comes before results, and the
// scan stops there; a file in another order is read to the end, still without a DOM).
#include <string>

namespace gpubench {

// The top-level "created_utc" string of the JSON file at `path`, or "" when the file
// cannot be read, is not a regular file (a FIFO is not opened: never waited on), is not
// JSON up to that key, or has none (the full load that follows reports what is wrong).
std::string scan_created_utc(const std::string& path);

}  // namespace gpubench
