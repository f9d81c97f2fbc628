#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include <torch/torch.h>

namespace gpubench {

// Where a dataset's samples come from: tensors in memory, images decoded from files, token
// windows of a mapped file. read_batch is called from the DataLoader's worker threads at
// once (each holds a copy of the Dataset, all sharing one reader), so it must be safe to
// call concurrently; a sample that cannot be read throws, naming its file.
class SampleReader {
 public:
  virtual ~SampleReader() = default;
  virtual torch::data::Example<> read_batch(c10::ArrayRef<std::size_t> indices) const = 0;
  virtual std::size_t size() const = 0;
  // For the report: "synthetic(seed=42)", "image-folder:/data/train (1000 of 1281167 images, 1000 classes)".
  virtual std::string source() const = 0;
};

// The DataLoader's dataset: a handle on a shared reader, cheap to copy into workers.
class Dataset : public torch::data::datasets::BatchDataset<Dataset, torch::data::Example<>> {
 public:
  explicit Dataset(std::shared_ptr<const SampleReader> reader);
  torch::data::Example<> get_batch(c10::ArrayRef<size_t> indices) override;
  torch::optional<size_t> size() const override;
  // Samples 0..count-1 as one batch (tests, benchmarks, the checkpoint check's probe).
  torch::data::Example<> first(std::size_t count) const;
  const SampleReader& reader() const { return *reader_; }

 private:
  std::shared_ptr<const SampleReader> reader_;
};

}  // namespace gpubench
