#include "workloads/family_layers.h"

namespace gpubench {

void FamilyLinearImpl::reset() {
  weight = register_parameter("weight", torch::empty({out, in}));
  if (with_bias) bias = register_parameter("bias", torch::empty({out}));
}

void FamilyEmbeddingImpl::reset() { weight = register_parameter("weight", torch::empty({count, dim})); }

void make_on(torch::nn::Module& module, torch::Device device) {
  torch::NoGradGuard no_grad;
  const auto replace = [device](torch::Tensor& t) {
    if (t.device() != device) t.set_data(torch::empty(t.sizes(), t.options().device(device)));
  };
  for (auto& parameter : module.parameters()) replace(parameter);
  for (auto& buffer : module.buffers()) replace(buffer);
}

}  // namespace gpubench
