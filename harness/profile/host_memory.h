#pragma once
#include <cstdint>

namespace gpubench {

// Resident set size of this process now, from /proc/self/statm (0 if unreadable).
std::uint64_t current_rss_bytes();
// Peak RSS of this process so far (getrusage ru_maxrss).
std::uint64_t peak_rss_bytes();

}  // namespace gpubench
