#include "workloads/resnet50.h"

#include "workloads/activation_checkpoint.h"
#include "workloads/data/image_folder.h"
#include "workloads/data/synthetic_images.h"

namespace gpubench {
namespace {

torch::nn::Conv2d conv(std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride, std::int64_t padding) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(padding).bias(false));
}

// One stage: `blocks` Bottlenecks, the first with the stride (and the downsample).
torch::nn::Sequential make_layer(std::int64_t& in_channels, std::int64_t planes, std::int64_t blocks, std::int64_t stride) {
  torch::nn::Sequential layer;
  layer->push_back(Bottleneck(in_channels, planes, stride));
  in_channels = planes * BottleneckImpl::kExpansion;
  for (std::int64_t i = 1; i < blocks; ++i) layer->push_back(Bottleneck(in_channels, planes, 1));
  return layer;
}

// floor((in + 2 * padding - kernel) / stride) + 1: the max pool's output size.
std::int64_t pooled_size(std::int64_t in) { return (in + 2 * 1 - 3) / 2 + 1; }

}  // namespace

BottleneckImpl::BottleneckImpl(std::int64_t in_channels, std::int64_t planes, std::int64_t stride)
    : in_channels(in_channels), planes(planes), stride(stride) {
  reset();
}

void BottleneckImpl::reset() {
  const std::int64_t out_channels = planes * kExpansion;
  conv1 = register_module("conv1", conv(in_channels, planes, 1, 1, 0));
  bn1 = register_module("bn1", torch::nn::BatchNorm2d(planes));
  conv2 = register_module("conv2", conv(planes, planes, 3, stride, 1));
  bn2 = register_module("bn2", torch::nn::BatchNorm2d(planes));
  conv3 = register_module("conv3", conv(planes, out_channels, 1, 1, 0));
  bn3 = register_module("bn3", torch::nn::BatchNorm2d(out_channels));
  if (stride != 1 || in_channels != out_channels) {
    downsample_conv = conv(in_channels, out_channels, 1, stride, 0);
    downsample = register_module("downsample", torch::nn::Sequential(downsample_conv, torch::nn::BatchNorm2d(out_channels)));
  }
}

// As torchvision's Bottleneck: ReLU in place and the identity added in place (its
// `out += identity`): BatchNorm's backward needs its input, not its output, so the
// activations it returns can be overwritten, and the step moves two fewer tensors a block.
torch::Tensor BottleneckImpl::forward(const torch::Tensor& x) {
  auto out = bn1(conv1(x));
  out.relu_();
  out = bn2(conv2(out));
  out.relu_();
  out = bn3(conv3(out));
  out += downsample ? downsample->forward(x) : x;
  return out.relu_();
}

Conv2dCost BottleneckImpl::forward_cost(std::int64_t height, std::int64_t width) const {
  const Conv2dCost first = conv2d_cost(conv1, height, width);
  const Conv2dCost second = conv2d_cost(conv2, first.height, first.width);
  Conv2dCost out = conv2d_cost(conv3, second.height, second.width);
  out.macs += first.macs + second.macs;
  if (downsample) out.macs += conv2d_cost(downsample_conv, height, width).macs;
  return out;
}

void ResNet50Impl::reset() {
  std::int64_t channels = 64;
  conv1 = register_module("conv1", conv(3, channels, 7, 2, 3));
  bn1 = register_module("bn1", torch::nn::BatchNorm2d(channels));
  layer1 = register_module("layer1", make_layer(channels, 64, 3, 1));
  layer2 = register_module("layer2", make_layer(channels, 128, 4, 2));
  layer3 = register_module("layer3", make_layer(channels, 256, 6, 2));
  layer4 = register_module("layer4", make_layer(channels, 512, 3, 2));
  fc = register_module("fc", torch::nn::Linear(channels, classes));
  // torchvision's initialisation (zero_init_residual=False).
  torch::NoGradGuard no_grad;
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* c = module->as<torch::nn::Conv2d>()) torch::nn::init::kaiming_normal_(c->weight, 0, torch::kFanOut, torch::kReLU);
    if (auto* bn = module->as<torch::nn::BatchNorm2d>()) {
      torch::nn::init::ones_(bn->weight);
      torch::nn::init::zeros_(bn->bias);
    }
  }
}

torch::Tensor ResNet50Impl::forward(const torch::Tensor& images) {
  auto x = bn1(conv1(images));
  x.relu_();
  x = torch::max_pool2d(x, /*kernel_size=*/3, /*stride=*/2, /*padding=*/1);
  std::size_t index = 0;
  for (torch::nn::Sequential stage : {layer1, layer2, layer3, layer4})
    x = segments.run(index++, [stage](const torch::Tensor& in) mutable { return stage->forward(in); }, x,
                     batch_norms_of(*stage));
  x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
  return fc(x);
}

std::int64_t ResNet50Impl::forward_macs_per_sample(std::int64_t height, std::int64_t width) const {
  Conv2dCost cost = conv2d_cost(conv1, height, width);
  std::int64_t macs = cost.macs;
  cost.height = pooled_size(cost.height);
  cost.width = pooled_size(cost.width);
  for (const auto* layer : {&layer1, &layer2, &layer3, &layer4})
    for (const auto& block : (*layer)->children()) {
      cost = block->as<BottleneckImpl>()->forward_cost(cost.height, cost.width);
      macs += cost.macs;
    }
  return macs + linear_macs(fc);  // after global average pooling: one 2048-vector
}

Dataset ResNet50Workload::make_dataset(const DatasetRequest& request) const {
  if (!request.data_path.empty())
    return Dataset(open_image_folder(request.data_path, {request.samples, request.seed, kClasses, kImageSize,
                                                         request.full_check, request.max_image_pixels}));
  return Dataset(make_synthetic_image_reader(request.samples, kImageSize, kSyntheticClasses, request.seed));
}

std::string ResNet50Workload::real_data_format() const {
  return "an ImageFolder tree (one subfolder per class, JPEG or PNG files)";
}

nlohmann::json ResNet50Workload::describe() const {
  return {{"definition",
           "torchvision resnet50 (ResNet v1.5): conv7x7/2(3->64,no bias)+BN+ReLU, maxpool3x3/2; Bottleneck stages "
           "[3,4,6,3] (planes 64,128,256,512, x4 expansion, stride on the 3x3 conv and the 1x1 downsample); global avg "
           "pool; Linear(2048->1000); BN eps 1e-5 momentum 0.1; kaiming_normal fan_out conv init; 3x224x224; "
           "cross-entropy; Adam lr 1e-3"},
          {"input_shape", {3, kImageSize, kImageSize}},
          {"classes", kClasses},
          {"synthetic_classes", kSyntheticClasses},
          {"reference", "torchvision.models.resnet50() (torchvision 0.26.0); state_dict names load unchanged"}};
}

Model ResNet50Workload::make_model_with(const ModelTechniques& techniques) const {
  if (techniques.fp8_linears) throw std::invalid_argument("resnet50 has no FP8 Linear layers (gpt2 has)");
  ResNet50 resnet(kClasses);
  resnet->segments.checkpoint = techniques.checkpoint;
  Model model = wrap_model(resnet);
  declare_units(model, resnet, {resnet->layer1.ptr(), resnet->layer2.ptr(), resnet->layer3.ptr(), resnet->layer4.ptr()});
  return model;
}

WorkloadTraits ResNet50Workload::traits() const {
  WorkloadTraits traits;
  traits.image_batches = true;
  traits.segments = true;  // its four stages
  traits.units = true;     // the same stages
  traits.real_scale = true;
  return traits;
}

}  // namespace gpubench
