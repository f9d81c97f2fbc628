#include "workloads/mlp.h"

#include "workloads/data/mnist.h"
#include "workloads/data/synthetic_images.h"
#include "workloads/model_flops.h"

namespace gpubench {

void MlpImpl::reset() {
  fc1 = register_module("fc1", torch::nn::Linear(784, 1024));
  fc2 = register_module("fc2", torch::nn::Linear(1024, 1024));
  fc3 = register_module("fc3", torch::nn::Linear(1024, 10));
}

torch::Tensor MlpImpl::forward(const torch::Tensor& images) {
  auto x = images.flatten(1);
  x = segments.run(0, [this](const torch::Tensor& in) { return torch::relu(fc1(in)); }, x);
  x = segments.run(1, [this](const torch::Tensor& in) { return torch::relu(fc2(in)); }, x);
  return segments.run(2, [this](const torch::Tensor& in) { return fc3(in); }, x);
}

Model MlpWorkload::make_model() const {
  Mlp mlp;
  Model model = wrap_model(mlp);
  declare_units(model, mlp, {mlp->fc1.ptr(), mlp->fc2.ptr(), mlp->fc3.ptr()});
  return model;
}

WorkloadTraits MlpWorkload::traits() const {
  WorkloadTraits traits = Workload::traits();
  traits.units = true;  // its three Linear layers
  traits.python_twin = true;
  return traits;
}

std::int64_t MlpImpl::forward_macs_per_sample() const {
  return linear_macs(fc1) + linear_macs(fc2) + linear_macs(fc3);
}

Dataset MlpWorkload::make_dataset(const DatasetRequest& request) const {
  if (!request.data_path.empty()) return Dataset(std::make_shared<TensorDataset>(load_mnist_idx(request.data_path, request.samples)));
  return Dataset(std::make_shared<TensorDataset>(make_class_pattern_images(request.samples, {1, 28, 28}, 10, request.seed)));
}

std::string MlpWorkload::real_data_format() const {
  return std::string("a folder with MNIST's ") + kMnistImagesFile + " and " + kMnistLabelsFile;
}

nlohmann::json MlpWorkload::describe() const {
  return {{"definition", "MLP 784-1024-1024-10, ReLU, MNIST-shaped 1x28x28 input, cross-entropy, Adam lr 1e-3"},
          {"input_shape", {1, 28, 28}},
          {"classes", 10}};
}

}  // namespace gpubench
