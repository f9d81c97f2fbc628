#include "harness/parallel/hmac_sha256.h"

#include <array>
#include <cstdint>

namespace gpubench {
namespace {

using Sha256Digest = std::array<std::uint8_t, 32>;

constexpr std::array<std::uint32_t, 64> kSha256RoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

std::uint32_t rotate_right(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

// One 64-byte block into the running state (FIPS 180-4, 6.2.2).
void sha256_block(std::array<std::uint32_t, 8>& state, const std::uint8_t* block) {
  std::array<std::uint32_t, 64> w{};
  for (int t = 0; t < 16; ++t)
    w[t] = std::uint32_t{block[4 * t]} << 24 | std::uint32_t{block[4 * t + 1]} << 16 | std::uint32_t{block[4 * t + 2]} << 8 |
           std::uint32_t{block[4 * t + 3]};
  for (int t = 16; t < 64; ++t) {
    const std::uint32_t s0 = rotate_right(w[t - 15], 7) ^ rotate_right(w[t - 15], 18) ^ (w[t - 15] >> 3);
    const std::uint32_t s1 = rotate_right(w[t - 2], 17) ^ rotate_right(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  std::array<std::uint32_t, 8> v = state;  // a b c d e f g h
  for (int t = 0; t < 64; ++t) {
    const std::uint32_t sum1 = rotate_right(v[4], 6) ^ rotate_right(v[4], 11) ^ rotate_right(v[4], 25);
    const std::uint32_t choose = (v[4] & v[5]) ^ (~v[4] & v[6]);
    const std::uint32_t t1 = v[7] + sum1 + choose + kSha256RoundConstants[t] + w[t];
    const std::uint32_t sum0 = rotate_right(v[0], 2) ^ rotate_right(v[0], 13) ^ rotate_right(v[0], 22);
    const std::uint32_t majority = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
    for (int i = 7; i > 0; --i) v[i] = v[i - 1];
    v[4] += t1;
    v[0] = t1 + sum0 + majority;
  }
  for (int i = 0; i < 8; ++i) state[i] += v[i];
}

Sha256Digest sha256_of(std::string_view message) {
  std::array<std::uint32_t, 8> state = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(message.data());
  std::size_t whole = message.size() / 64 * 64;
  for (std::size_t at = 0; at < whole; at += 64) sha256_block(state, bytes + at);
  // The tail, a 1 bit, zeros, and the message's length in bits (big-endian): one or two blocks.
  std::array<std::uint8_t, 128> tail{};
  const std::size_t rest = message.size() - whole;
  for (std::size_t i = 0; i < rest; ++i) tail[i] = bytes[whole + i];
  tail[rest] = 0x80;
  const std::size_t tail_bytes = rest < 56 ? 64 : 128;
  const std::uint64_t bits = static_cast<std::uint64_t>(message.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_bytes - 1 - i] = static_cast<std::uint8_t>(bits >> (8 * i));
  for (std::size_t at = 0; at < tail_bytes; at += 64) sha256_block(state, tail.data() + at);
  Sha256Digest digest{};
  for (int i = 0; i < 8; ++i)
    for (int b = 0; b < 4; ++b) digest[4 * i + b] = static_cast<std::uint8_t>(state[i] >> (24 - 8 * b));
  return digest;
}

std::string hex_of(const Sha256Digest& digest) {
  return lowercase_hex(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

}  // namespace

std::string lowercase_hex(std::string_view bytes) {
  constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (const char byte : bytes) {
    text += kDigits[static_cast<unsigned char>(byte) >> 4];
    text += kDigits[static_cast<unsigned char>(byte) & 0xf];
  }
  return text;
}

std::string sha256_hex(std::string_view message) { return hex_of(sha256_of(message)); }

std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
  constexpr std::size_t kBlockBytes = 64;
  std::string block_key(key);
  if (block_key.size() > kBlockBytes) {
    const Sha256Digest hashed = sha256_of(block_key);
    block_key.assign(hashed.begin(), hashed.end());
  }
  block_key.resize(kBlockBytes, '\0');
  std::string inner, outer;
  for (const char byte : block_key) {
    inner += static_cast<char>(byte ^ 0x36);
    outer += static_cast<char>(byte ^ 0x5c);
  }
  const Sha256Digest inner_digest = sha256_of(inner.append(message));
  return hex_of(sha256_of(outer.append(inner_digest.begin(), inner_digest.end())));
}

bool equal_in_constant_time(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;  // a MAC's length is no secret
  unsigned char difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i) difference |= static_cast<unsigned char>(a[i] ^ b[i]);
  return difference == 0;
}

}  // namespace gpubench
