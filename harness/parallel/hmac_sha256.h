#pragma once
// HMAC-SHA256 (RFC 2104 over FIPS 180-4's SHA-256), what authenticates the values ranks hand
// each other through the rendezvous store (store_seal.h). Written here rather than linked
// from OpenSSL: a hundred lines checked against the RFC 4231 and FIPS vectors, and no new
// library for every machine (the GPU machine's copied dependencies) to carry.
#include <string>
#include <string_view>

namespace gpubench {

// SHA-256 of `message`, as 64 lowercase hex digits.
std::string sha256_hex(std::string_view message);

// HMAC-SHA256 of `message` under `key` (any length: a longer one is hashed first), as 64
// lowercase hex digits.
std::string hmac_sha256_hex(std::string_view key, std::string_view message);

// Each byte as two lowercase hex digits.
std::string lowercase_hex(std::string_view bytes);

// a == b, taking as long whatever prefix they share: comparing a MAC must not tell a
// forger how many of its leading digits were right.
bool equal_in_constant_time(std::string_view a, std::string_view b);

}  // namespace gpubench
