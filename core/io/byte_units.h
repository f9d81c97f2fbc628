#pragma once

namespace gpubench {

// Bytes in a GiB, for the memory figures printed and compared in GiB.
inline constexpr double kGiB = 1024.0 * 1024 * 1024;

}  // namespace gpubench
