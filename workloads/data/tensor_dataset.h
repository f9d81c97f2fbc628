#pragma once
#include <memory>
#include <string>

#include <torch/torch.h>

#include "workloads/data/dataset.h"

namespace gpubench {

// Samples held in memory as two tensors (synthetic data, MNIST): read_batch gathers the
// sampler's indices with one index_select per tensor instead of stacking per-sample
// tensors, so the loader measures data movement, not allocator churn.
class TensorDataset final : public SampleReader {
 public:
  TensorDataset(torch::Tensor inputs, torch::Tensor targets, std::string source = "in-memory tensors");
  torch::data::Example<> read_batch(c10::ArrayRef<std::size_t> indices) const override;
  std::size_t size() const override;
  std::string source() const override { return source_; }
  const torch::Tensor& inputs() const { return inputs_; }
  const torch::Tensor& targets() const { return targets_; }

 private:
  torch::Tensor inputs_, targets_;
  std::string source_;
};

}  // namespace gpubench
