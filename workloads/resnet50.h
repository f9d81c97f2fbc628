#pragma once
#include "workloads/model_flops.h"
#include "workloads/workload.h"

namespace gpubench {

// torchvision's Bottleneck (ResNet v1.5: the stride sits on the 3x3 conv): conv1x1-BN-ReLU,
// conv3x3(stride)-BN-ReLU, conv1x1(x4)-BN, plus the identity or `downsample` (conv1x1 with
// the stride + BN), then ReLU. Submodule names are torchvision's, so its state_dict loads
// by name unchanged (workloads/reference_weights.h).
struct BottleneckImpl : torch::nn::Cloneable<BottleneckImpl> {
  static constexpr std::int64_t kExpansion = 4;
  BottleneckImpl(std::int64_t in_channels, std::int64_t planes, std::int64_t stride);
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x);
  // Multiply-adds of one sample through the block from a height x width input, and the
  // block's output size.
  Conv2dCost forward_cost(std::int64_t height, std::int64_t width) const;

  std::int64_t in_channels, planes, stride;
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
  torch::nn::Sequential downsample{nullptr};  // conv1x1 "0" + BN "1", when the shape changes
  torch::nn::Conv2d downsample_conv{nullptr};  // downsample's "0", for the FLOP count
};
TORCH_MODULE(Bottleneck);

// torchvision.models.resnet50(): conv1 7x7/2 (no bias), bn1, ReLU, maxpool 3x3/2; layer1..4
// of [3, 4, 6, 3] Bottlenecks (planes 64, 128, 256, 512; stride 2 from layer2 on); global
// average pool; fc 2048 -> 1000. BatchNorm eps 1e-5, momentum 0.1; convolutions
// kaiming_normal_(fan_out, relu), BN weight 1 and bias 0, fc LibTorch's Linear default (as
// PyTorch's). 25,557,032 parameters.
struct ResNet50Impl : torch::nn::Cloneable<ResNet50Impl> {
  explicit ResNet50Impl(std::int64_t classes = 1000) : classes(classes) { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& images);
  // Multiply-adds of one height x width sample's forward (model_flops.h): every
  // convolution at the size it sees, and fc; BN, ReLU and pooling none. 4,089,184,256 at 224.
  std::int64_t forward_macs_per_sample(std::int64_t height = 224, std::int64_t width = 224) const;

  std::int64_t classes;
  SegmentRunner segments;  // its four stages: ckpt, fsdp's units
  torch::nn::Conv2d conv1{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr};
  torch::nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr}, layer4{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(ResNet50);

// ResNet-50 on 3x224x224 images, 1000 classes: NVIDIA's recipe batch (256) on a GPU, 8 on a
// CPU. Synthetic data by default (10 classes' patterns under noise, made per batch); --data
// resnet50=DIR reads an ImageFolder tree, decoded and augmented in the DataLoader workers.
class ResNet50Workload final : public Workload {
 public:
  static constexpr std::int64_t kClasses = 1000, kImageSize = 224;
  // Synthetic labels use classes 0..9 of the 1000 outputs: over 1000 a CPU run's few dozen
  // samples fall nowhere (measured: 24 steps of 8 rose from 6.8 to 9+); over 10 the loss
  // falls within ten steps, as the small workloads' does.
  static constexpr std::int64_t kSyntheticClasses = 10;
  std::string name() const override { return "resnet50"; }
  std::int64_t default_batch_size(DeviceKind device) const override { return device == DeviceKind::Cuda ? 256 : 8; }
  // Synthetic images are made per batch, so this costs no memory; an ImageFolder tree
  // larger than the preset's size is sampled evenly.
  std::int64_t base_dataset_samples() const override { return 16384; }
  Model make_model() const override { return make_model_with({}); }
  Model make_model_with(const ModelTechniques& techniques) const override;  // checkpoint
  Dataset make_dataset(const DatasetRequest& request) const override;
  nlohmann::json describe() const override;
  std::int64_t forward_macs_per_sample() const override { return ResNet50(kClasses)->forward_macs_per_sample(); }
  std::string real_data_format() const override;
  bool real_scale() const override { return true; }
  WorkloadTraits traits() const override;
};

}  // namespace gpubench
