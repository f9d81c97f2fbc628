#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "workloads/data/tensor_dataset.h"
#include "workloads/model.h"

namespace gpubench {

// What a dataset is built from: a preset-scaled size, a seed, and optionally real data.
struct DatasetRequest {
  std::int64_t samples = 0;
  std::uint64_t seed = 0;
  std::string data_dir;  // empty = synthetic
};

// One training workload: model, dataset and loss, with its exact definition recorded in
// the report so other tools can be compared against it. Adam lr 1e-3 for all.
class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string name() const = 0;
  virtual std::int64_t default_batch_size() const = 0;
  // Dataset size of the `default` preset; presets scale it.
  virtual std::int64_t base_dataset_samples() const = 0;
  virtual Model make_model() const = 0;
  virtual TensorDataset make_dataset(const DatasetRequest& request) const = 0;
  // Cross-entropy of the model's output against the targets, computed in fp32 (autocast
  // outputs are cast up so the loss itself is never low precision).
  virtual torch::Tensor loss(const torch::Tensor& output, const torch::Tensor& targets) const;
  // Human-readable definition and sizes for the report.
  virtual nlohmann::json describe() const = 0;
  // Multiply-adds of one sample's forward, counted from the model's layers
  // (model_flops.h has the convention); training FLOPs are training_flops() of it.
  virtual std::int64_t forward_macs_per_sample() const = 0;
  virtual bool accepts_real_data() const { return false; }
};

std::unique_ptr<Workload> make_workload(const std::string& name);  // throws UsageError
const std::vector<std::string>& workload_names();

}  // namespace gpubench
