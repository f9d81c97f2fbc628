#include "harness/parallel/parameter_digest.h"

#include <cstdio>
#include <cstring>

namespace gpubench {
namespace {

// xxHash64's primes and round: each lane is a chain of multiplies, four lanes keep the
// core's multipliers busy, so the hash runs at about memory speed, not at one multiply's
// latency a byte.
constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t kPrime3 = 0x165667B19E3779F9ULL;
constexpr std::uint64_t kPrime4 = 0x85EBCA77C2B2AE63ULL;
constexpr std::uint64_t kPrime5 = 0x27D4EB2F165667C5ULL;

std::uint64_t rotate_left(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

std::uint64_t digest_round(std::uint64_t lane, std::uint64_t word) { return rotate_left(lane + word * kPrime2, 31) * kPrime1; }

std::uint64_t merge_lane(std::uint64_t hash, std::uint64_t lane) { return (hash ^ digest_round(0, lane)) * kPrime1 + kPrime4; }

std::uint64_t load64(const unsigned char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, sizeof(word));  // unaligned-safe; one mov on x86
  return word;
}

// The final mix: every input bit reaches every output bit.
std::uint64_t avalanche(std::uint64_t hash) {
  hash ^= hash >> 33;
  hash *= kPrime2;
  hash ^= hash >> 29;
  hash *= kPrime3;
  return hash ^ (hash >> 32);
}

}  // namespace

std::uint64_t hash_bytes(const void* bytes, std::size_t size, std::uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(bytes);
  const unsigned char* const end = p + size;
  std::uint64_t hash;
  if (size >= 32) {
    std::uint64_t lanes[4] = {seed + kPrime1 + kPrime2, seed + kPrime2, seed, seed - kPrime1};
    for (; end - p >= 32; p += 32)
      for (int lane = 0; lane < 4; ++lane) lanes[lane] = digest_round(lanes[lane], load64(p + 8 * lane));
    hash = rotate_left(lanes[0], 1) + rotate_left(lanes[1], 7) + rotate_left(lanes[2], 12) + rotate_left(lanes[3], 18);
    for (std::uint64_t lane : lanes) hash = merge_lane(hash, lane);
  } else {
    hash = seed + kPrime5;
  }
  hash += static_cast<std::uint64_t>(size);
  for (; end - p >= 8; p += 8) hash = rotate_left(hash ^ digest_round(0, load64(p)), 27) * kPrime1 + kPrime4;
  for (; p < end; ++p) hash = rotate_left(hash ^ (*p * kPrime5), 11) * kPrime1;
  return avalanche(hash);
}

void ParameterDigest::add(const torch::Tensor& tensor) {
  const torch::Tensor host = tensor.detach().to(torch::kCPU).contiguous();
  // Chained: each tensor's hash is seeded with the digest so far, so order counts.
  hash_ = hash_bytes(host.data_ptr(), host.nbytes(), hash_);
}

std::string ParameterDigest::hex() const {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(hash_));
  return text;
}

std::string parameter_digest(const std::vector<torch::Tensor>& parameters) {
  ParameterDigest digest;
  for (const auto& parameter : parameters) digest.add(parameter);
  return digest.hex();
}

}  // namespace gpubench
