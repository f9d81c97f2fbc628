#include "harness/parallel/parameter_digest.h"

#include <cstdio>

namespace gpubench {

void ParameterDigest::add(const torch::Tensor& tensor) {
  const torch::Tensor host = tensor.detach().to(torch::kCPU).contiguous();
  const auto* bytes = static_cast<const unsigned char*>(host.data_ptr());
  for (std::size_t i = 0; i < host.nbytes(); ++i) hash_ = (hash_ ^ bytes[i]) * 1099511628211ULL;
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
