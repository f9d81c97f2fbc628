// gpubench's standard models against their references: the reference's weights, loaded
// by name (workloads/reference_weights.h), give the same logits, loss and parameter
// gradients after one backward, in fp32 on the CPU, to 1e-5 relative. The reference side
// is tests/workloads/reference_outputs.py (torchvision resnet50, HF
// GPT2LMHeadModel), which ctest runs first into GPUBENCH_REFERENCE_DIR/<workload>/.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <tuple>

#include <gtest/gtest.h>

#include "workloads/gpt2.h"
#include "workloads/reference_weights.h"
#include "workloads/resnet50.h"

namespace gpubench {
namespace {

constexpr double kRelative = 1e-5;

std::string reference_dir(const std::string& workload) {
  const char* root = std::getenv("GPUBENCH_REFERENCE_DIR");
  return root == nullptr ? "" : std::string(root) + "/" + workload;
}

// max |actual - expected| over max |expected|: the error relative to the tensor's scale.
double relative_error(const torch::Tensor& actual, const torch::Tensor& expected) {
  const double scale = expected.abs().max().item<double>();
  const double error = (actual - expected).abs().max().item<double>();
  return scale > 0 ? error / scale : error;
}

void expect_equal_to_reference(const std::string& workload, torch::nn::Module& module,
                               const std::function<torch::Tensor(const torch::Tensor&)>& forward,
                               const std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&)>& loss_of,
                               const WeightMapping& mapping) {
  const std::string dir = reference_dir(workload);
  if (dir.empty()) GTEST_SKIP() << "GPUBENCH_REFERENCE_DIR is not set: ctest runs reference_outputs.py first";
  ASSERT_TRUE(std::filesystem::exists(dir + "/weights.pt")) << dir << ": the reference side did not run";
  at::set_num_threads(1);  // as the reference side: the same kernels on the same partition
  load_reference_weights(module, read_tensor_file(dir + "/weights.pt"), mapping);
  const TensorMap io = read_tensor_file(dir + "/io.pt");
  module.train();
  const torch::Tensor logits = forward(io.at("input"));
  const torch::Tensor loss = loss_of(logits, io.at("target"));
  const double logits_error = relative_error(logits, io.at("logits"));
  EXPECT_LE(logits_error, kRelative) << "logits";
  EXPECT_LE(relative_error(loss, io.at("loss")), kRelative)
      << "loss " << loss.item<double>() << " vs " << io.at("loss").item<double>();
  loss.backward();

  const TensorMap grads = read_tensor_file(dir + "/grads.pt");
  int compared = 0;
  double worst = 0;
  std::string worst_name;
  for (const auto& item : module.named_parameters()) {
    const WeightMapping::Name name = mapping.to_reference(item.key());
    ASSERT_TRUE(grads.count(name.reference_name)) << item.key() << " has no reference gradient";
    ASSERT_TRUE(item.value().grad().defined()) << item.key() << " got no gradient";
    const double error = relative_error(item.value().grad(), mapping.to_ours(name, grads.at(name.reference_name)));
    EXPECT_LE(error, kRelative) << item.key();
    if (error >= worst) std::tie(worst, worst_name) = std::make_pair(error, item.key());
    ++compared;
  }
  // For the record (ctest --verbose): how close the two implementations are.
  std::cout << workload << ": logits relative error " << logits_error << ", worst gradient " << worst << " ("
            << worst_name << "), " << compared << " gradients compared" << std::endl;
  EXPECT_EQ(compared, static_cast<int>(grads.size())) << "every reference gradient has its parameter";
  // Buffers after the training-mode forward: BatchNorm's momentum and running statistics.
  const TensorMap after = read_tensor_file(dir + "/after.pt");
  for (const auto& item : module.named_buffers()) {
    const auto found = after.find(mapping.to_reference(item.key()).reference_name);
    ASSERT_NE(found, after.end()) << item.key();
    EXPECT_LE(relative_error(item.value().to(torch::kFloat64), found->second.to(torch::kFloat64)), kRelative) << item.key();
  }
}

TEST(ReferenceEquality, ResNet50EqualsTorchvisionResnet50) {
  torch::manual_seed(1);  // any init: every weight comes from the reference
  ResNet50 model;
  const ResNet50Workload workload;
  expect_equal_to_reference(
      "resnet50", *model, [&](const torch::Tensor& x) { return model->forward(x); },
      [&](const torch::Tensor& out, const torch::Tensor& y) { return workload.loss(out, y); }, torchvision_resnet_names());
}

TEST(ReferenceEquality, Gpt2EqualsHuggingFaceGpt2LMHeadModel) {
  torch::manual_seed(1);
  Gpt2 model;
  const Gpt2Workload workload;
  expect_equal_to_reference(
      "gpt2", *model, [&](const torch::Tensor& x) { return model->forward(x); },
      [&](const torch::Tensor& out, const torch::Tensor& y) { return workload.loss(out, y); }, huggingface_gpt2_names());
}

}  // namespace
}  // namespace gpubench
