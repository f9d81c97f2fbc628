// The name mapping between the references' state_dicts and gpubench's models, on its own
// (reference_equality_test.cpp runs the references themselves).
#include "workloads/reference_weights.h"

#include <gtest/gtest.h>

#include "workloads/resnet50.h"

namespace gpubench {
namespace {

TEST(ReferenceWeights, RefusesANameWithoutCounterpartAndAWrongShape) {
  ResNet50 model;
  TensorMap weights;
  for (const auto& item : model->named_parameters()) weights[item.key()] = item.value().detach().clone();
  for (const auto& item : model->named_buffers()) weights[item.key()] = item.value().clone();
  weights["fc.extra"] = torch::zeros({1});
  weights["fc.weight"] = torch::zeros({10, 2048});
  try {
    load_reference_weights(*model, weights, torchvision_resnet_names());
    FAIL() << "loaded a mismatched file";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("fc.extra has no counterpart"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("fc.weight is [1000, 2048]"), std::string::npos) << error.what();
  }
}

TEST(ReferenceWeights, Gpt2ConvOneDWeightsAreTransposedAndTheHeadIsTied) {
  const WeightMapping mapping = huggingface_gpt2_names();
  EXPECT_TRUE(mapping.to_reference("transformer.h.3.attn.c_attn.weight").transposed);
  EXPECT_TRUE(mapping.to_reference("transformer.h.0.mlp.c_proj.weight").transposed);
  EXPECT_FALSE(mapping.to_reference("transformer.h.0.mlp.c_proj.bias").transposed);
  EXPECT_FALSE(mapping.to_reference("transformer.wte.weight").transposed);
  EXPECT_EQ(mapping.tied.at("lm_head.weight"), "transformer.wte.weight");
}

}  // namespace
}  // namespace gpubench
