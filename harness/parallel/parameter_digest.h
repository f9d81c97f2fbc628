#pragma once
// A 64-bit hash of tensors' bytes (each copied to the host, contiguous), in hex: equal for
// bitwise-equal tensors, and different, but for a 2^-64 chance, for any others. What lets
// rank 0 say every rank ended with the same model (ddp.final_parameters_identical).
//
// Hashed in 8-byte words over four independent lanes (xxHash64's round and merge): the
// byte-by-byte FNV-1a it replaces cost ~1.3 s a GiB on one core, on every rank, which a
// large model's row paid inside its time cap even with the checkpoint check off.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <torch/torch.h>

namespace gpubench {

// The hash of `size` bytes at `bytes`, from `seed`: the word hashing ParameterDigest uses.
std::uint64_t hash_bytes(const void* bytes, std::size_t size, std::uint64_t seed);

class ParameterDigest {
 public:
  // Folds in the tensor's bytes and its byte count (so where one tensor ends counts too).
  void add(const torch::Tensor& tensor);
  std::string hex() const;

 private:
  std::uint64_t hash_ = 14695981039346656037ULL;
};

std::string parameter_digest(const std::vector<torch::Tensor>& parameters);

}  // namespace gpubench
