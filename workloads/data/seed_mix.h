#pragma once
#include <cstdint>

namespace gpubench {

// splitmix64's finaliser: a well-spread 64-bit hash, for per-sample seeds (labels, noise
// rows, window starts, augmentation) that are the same on every platform.
inline std::uint64_t seed_mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace gpubench
