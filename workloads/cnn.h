#pragma once
#include "workloads/model_flops.h"
#include "workloads/workload.h"

namespace gpubench {

// ResNet BasicBlock: conv3x3-BN-ReLU-conv3x3-BN + shortcut (1x1 conv + BN projection when
// the shape changes), then ReLU.
struct BasicBlockImpl : torch::nn::Cloneable<BasicBlockImpl> {
  BasicBlockImpl(std::int64_t in_channels, std::int64_t out_channels, std::int64_t stride);
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x);
  // Multiply-adds of one sample's pass through the block from a height x width input
  // (conv1, conv2 and the projection when there is one), and the block's output size.
  Conv2dCost forward_cost(std::int64_t height, std::int64_t width) const;

  std::int64_t in_channels, out_channels, stride;
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, projection{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, projection_bn{nullptr};
};
TORCH_MODULE(BasicBlock);

// Stem conv3x3(3->32, no bias)+BN+ReLU; BasicBlocks 32->32 s1, 32->64 s2, 64->128 s2;
// global average pool; Linear(128->10). CIFAR-shaped 3x32x32 input.
struct CnnImpl : torch::nn::Cloneable<CnnImpl> {
  CnnImpl() { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& images);
  // Multiply-adds of one height x width sample's forward (model_flops.h): the stem, every
  // block's convolutions at the size they see, and the head; BN, ReLU and pooling none.
  std::int64_t forward_macs_per_sample(std::int64_t height = 32, std::int64_t width = 32) const;

  torch::nn::Conv2d stem{nullptr};
  torch::nn::BatchNorm2d stem_bn{nullptr};
  BasicBlock block1{nullptr}, block2{nullptr}, block3{nullptr};
  torch::nn::Linear head{nullptr};
  SegmentRunner segments;  // its three blocks: ckpt, fsdp's units
};
TORCH_MODULE(Cnn);

class CnnWorkload final : public Workload {
 public:
  std::string name() const override { return "cnn"; }
  std::int64_t default_batch_size(DeviceKind) const override { return 128; }
  std::int64_t base_dataset_samples() const override { return 8192; }
  Model make_model() const override { return make_model_with({}); }
  Model make_model_with(const ModelTechniques& techniques) const override;  // checkpoint
  Dataset make_dataset(const DatasetRequest& request) const override;
  nlohmann::json describe() const override;
  std::int64_t forward_macs_per_sample() const override { return Cnn()->forward_macs_per_sample(); }
  WorkloadTraits traits() const override;
};

}  // namespace gpubench
