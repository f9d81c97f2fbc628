#pragma once
#include <torch/torch.h>

namespace gpubench {

// An in-memory dataset served to torch::data's DataLoader a batch at a time: get_batch
// gathers the sampler's indices with one index_select per tensor instead of stacking
// per-sample tensors, so the loader measures data movement, not allocator churn.
class TensorDataset : public torch::data::datasets::BatchDataset<TensorDataset, torch::data::Example<>> {
 public:
  TensorDataset(torch::Tensor inputs, torch::Tensor targets);
  torch::data::Example<> get_batch(c10::ArrayRef<size_t> indices) override;
  torch::optional<size_t> size() const override;
  const torch::Tensor& inputs() const { return inputs_; }
  const torch::Tensor& targets() const { return targets_; }

 private:
  torch::Tensor inputs_, targets_;
};

}  // namespace gpubench
