#include "workloads/data/tensor_dataset.h"

#include <stdexcept>
#include <vector>

namespace gpubench {

TensorDataset::TensorDataset(torch::Tensor inputs, torch::Tensor targets, std::string source)
    : inputs_(std::move(inputs)), targets_(std::move(targets)), source_(std::move(source)) {
  if (inputs_.size(0) != targets_.size(0))
    throw std::invalid_argument("TensorDataset: " + std::to_string(inputs_.size(0)) + " inputs but " +
                                std::to_string(targets_.size(0)) + " targets");
}

torch::data::Example<> TensorDataset::read_batch(c10::ArrayRef<std::size_t> indices) const {
  std::vector<int64_t> rows(indices.begin(), indices.end());
  const auto index = torch::from_blob(rows.data(), {static_cast<int64_t>(rows.size())}, torch::kInt64);
  return {inputs_.index_select(0, index), targets_.index_select(0, index)};
}

std::size_t TensorDataset::size() const { return static_cast<std::size_t>(inputs_.size(0)); }

}  // namespace gpubench
