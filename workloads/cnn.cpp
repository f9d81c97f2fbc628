#include "workloads/cnn.h"

#include "workloads/activation_checkpoint.h"
#include "workloads/data/synthetic_images.h"

namespace gpubench {
namespace {
torch::nn::Conv2d conv3x3(std::int64_t in, std::int64_t out, std::int64_t stride) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}
}  // namespace

BasicBlockImpl::BasicBlockImpl(std::int64_t in_channels, std::int64_t out_channels, std::int64_t stride)
    : in_channels(in_channels), out_channels(out_channels), stride(stride) {
  reset();
}

void BasicBlockImpl::reset() {
  conv1 = register_module("conv1", conv3x3(in_channels, out_channels, stride));
  bn1 = register_module("bn1", torch::nn::BatchNorm2d(out_channels));
  conv2 = register_module("conv2", conv3x3(out_channels, out_channels, 1));
  bn2 = register_module("bn2", torch::nn::BatchNorm2d(out_channels));
  if (stride != 1 || in_channels != out_channels) {
    projection = register_module(
        "projection", torch::nn::Conv2d(torch::nn::Conv2dOptions(in_channels, out_channels, 1).stride(stride).bias(false)));
    projection_bn = register_module("projection_bn", torch::nn::BatchNorm2d(out_channels));
  }
}

torch::Tensor BasicBlockImpl::forward(const torch::Tensor& x) {
  auto out = torch::relu(bn1(conv1(x)));
  out = bn2(conv2(out));
  const auto shortcut = projection ? projection_bn(projection(x)) : x;
  return torch::relu(out + shortcut);
}

Conv2dCost BasicBlockImpl::forward_cost(std::int64_t height, std::int64_t width) const {
  const Conv2dCost first = conv2d_cost(conv1, height, width);
  Conv2dCost out = conv2d_cost(conv2, first.height, first.width);
  out.macs += first.macs + (projection ? conv2d_cost(projection, height, width).macs : 0);
  return out;
}

void CnnImpl::reset() {
  stem = register_module("stem", conv3x3(3, 32, 1));
  stem_bn = register_module("stem_bn", torch::nn::BatchNorm2d(32));
  block1 = register_module("block1", BasicBlock(32, 32, 1));
  block2 = register_module("block2", BasicBlock(32, 64, 2));
  block3 = register_module("block3", BasicBlock(64, 128, 2));
  head = register_module("head", torch::nn::Linear(128, 10));
}

torch::Tensor CnnImpl::forward(const torch::Tensor& images) {
  auto x = torch::relu(stem_bn(stem(images)));
  std::size_t index = 0;
  for (BasicBlock block : {block1, block2, block3})
    x = segments.run(index++, [block](const torch::Tensor& in) mutable { return block->forward(in); }, x,
                     batch_norms_of(*block));
  x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
  return head(x);
}

std::int64_t CnnImpl::forward_macs_per_sample(std::int64_t height, std::int64_t width) const {
  Conv2dCost cost = conv2d_cost(stem, height, width);
  std::int64_t macs = cost.macs;
  for (const BasicBlock& block : {block1, block2, block3}) {
    cost = block->forward_cost(cost.height, cost.width);
    macs += cost.macs;
  }
  return macs + linear_macs(head);  // after global average pooling: one 128-vector
}

Dataset CnnWorkload::make_dataset(const DatasetRequest& request) const {
  return Dataset(std::make_shared<TensorDataset>(make_class_pattern_images(request.samples, {3, 32, 32}, 10, request.seed)));
}

Model CnnWorkload::make_model_with(const ModelTechniques& techniques) const {
  if (techniques.fp8_linears) throw std::invalid_argument("cnn has no FP8 Linear layers");
  Cnn cnn;
  cnn->segments.checkpoint = techniques.checkpoint;
  Model model = wrap_model(cnn);
  declare_units(model, cnn, {cnn->block1.ptr(), cnn->block2.ptr(), cnn->block3.ptr()});
  return model;
}

WorkloadTraits CnnWorkload::traits() const {
  WorkloadTraits traits;
  traits.image_batches = true;
  traits.segments = true;  // its three BasicBlocks
  traits.units = true;     // the same blocks
  return traits;
}

nlohmann::json CnnWorkload::describe() const {
  return {{"definition",
           "ResNet-style CNN: stem conv3x3(3->32,no bias)+BN+ReLU; BasicBlocks 32->32 s1, 32->64 s2 (1x1 proj), "
           "64->128 s2 (1x1 proj); global avg pool; Linear(128->10); CIFAR-shaped 3x32x32; cross-entropy; Adam lr 1e-3"},
          {"input_shape", {3, 32, 32}},
          {"classes", 10}};
}

}  // namespace gpubench
