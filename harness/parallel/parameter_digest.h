#pragma once
// A 64-bit FNV-1a hash of tensors' bytes (each copied to the host, contiguous), in hex:
// equal only for bitwise-equal tensors. What lets rank 0 say every rank ended with the
// same model (ddp.final_parameters_identical).
#include <cstdint>
#include <string>
#include <vector>

#include <torch/torch.h>

namespace gpubench {

class ParameterDigest {
 public:
  void add(const torch::Tensor& tensor);
  std::string hex() const;

 private:
  std::uint64_t hash_ = 14695981039346656037ULL;
};

std::string parameter_digest(const std::vector<torch::Tensor>& parameters);

}  // namespace gpubench
