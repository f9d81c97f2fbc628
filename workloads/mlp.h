#pragma once
#include "workloads/workload.h"

namespace gpubench {

// 784 -> 1024 -> 1024 -> 10 with ReLU, on MNIST-shaped 1x28x28 inputs (flattened).
struct MlpImpl : torch::nn::Cloneable<MlpImpl> {
  MlpImpl() { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& images);
  // Multiply-adds of one sample's forward (model_flops.h): the three Linear layers,
  // 784*1024 + 1024*1024 + 1024*10.
  std::int64_t forward_macs_per_sample() const;
  torch::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
  SegmentRunner segments;  // its three layers: fsdp's units (no ckpt: nothing worth recomputing)
};
TORCH_MODULE(Mlp);

class MlpWorkload final : public Workload {
 public:
  std::string name() const override { return "mlp"; }
  std::int64_t default_batch_size(DeviceKind) const override { return 256; }
  std::int64_t base_dataset_samples() const override { return 16384; }
  Model make_model() const override;
  Dataset make_dataset(const DatasetRequest& request) const override;
  nlohmann::json describe() const override;
  std::int64_t forward_macs_per_sample() const override { return Mlp()->forward_macs_per_sample(); }
  std::string real_data_format() const override;
  WorkloadTraits traits() const override;
  std::optional<PythonTwin> python_twin() const override { return PythonTwin{"mlp"}; }
};

}  // namespace gpubench
