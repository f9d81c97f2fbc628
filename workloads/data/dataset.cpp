#include "workloads/data/dataset.h"

#include <numeric>
#include <stdexcept>
#include <vector>

namespace gpubench {

Dataset::Dataset(std::shared_ptr<const SampleReader> reader) : reader_(std::move(reader)) {
  if (!reader_) throw std::invalid_argument("Dataset: no reader");
}

torch::data::Example<> Dataset::get_batch(c10::ArrayRef<size_t> indices) { return reader_->read_batch(indices); }

torch::optional<size_t> Dataset::size() const { return reader_->size(); }

torch::data::Example<> Dataset::first(std::size_t count) const {
  if (count > reader_->size())
    throw std::invalid_argument("Dataset::first: " + std::to_string(count) + " samples asked of " +
                                std::to_string(reader_->size()));
  std::vector<std::size_t> indices(count);
  std::iota(indices.begin(), indices.end(), std::size_t{0});
  return reader_->read_batch(indices);
}

}  // namespace gpubench
