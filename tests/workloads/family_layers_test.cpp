// The decoder families' layers and builders: a model is built uninitialised, then drawn
// once by the family's init (or filled by a checkpoint's weights) where it will train.
#include "workloads/family_layers.h"

#include <gtest/gtest.h>

#include <cmath>

#include "support/tiny_llama.h"
#include "workloads/gpt2.h"
#include "workloads/decoder.h"

namespace gpubench {
namespace {

// The tiny Llama with query/key/value biases and a padding row: every part the init sets.
DecoderShape small_llama() {
  DecoderShape s = test_support::tiny_llama();
  s.qkv_bias = true;
  s.pad_token_id = 3;
  return s;
}

double std_of(const torch::Tensor& t) { return t.to(torch::kFloat64).std().item<double>(); }

TEST(FamilyLayers, LinearAndEmbeddingComputeAsLibTorchsOwn) {
  torch::manual_seed(0);
  FamilyLinear linear(8, 4, true);
  torch::nn::init::normal_(linear->weight);
  torch::nn::init::normal_(linear->bias);
  const auto x = torch::randn({3, 8});
  EXPECT_TRUE(torch::equal(linear(x), torch::nn::functional::linear(x, linear->weight, linear->bias)));
  EXPECT_EQ(linear->named_parameters().size(), 2u);
  EXPECT_FALSE(FamilyLinear(8, 4, false)->bias.defined());
  FamilyEmbedding table(10, 4, 2);
  torch::nn::init::normal_(table->weight);
  const auto ids = torch::tensor({{2, 5, 2}}, torch::kInt64);
  EXPECT_TRUE(torch::equal(table(ids), table->weight.index_select(0, ids.flatten()).view({1, 3, 4})));
  table(ids).sum().backward();
  EXPECT_EQ(table->weight.grad()[2].abs().sum().item<double>(), 0.0) << "the padding row gets no gradient";
}

// HF's init, drawn once: Linear and Embedding N(0, 0.02), biases 0, the padding row 0, norms 1.
TEST(FamilyLayers, ALlamaIsDrawnByItsInitAndALoadedOneOnlyByItsWeights) {
  torch::manual_seed(0);
  const Model model = make_decoder_model(small_llama(), {});
  auto* llama = model.module->as<DecoderLmImpl>();
  ASSERT_NE(llama, nullptr);
  const auto& layer = *llama->model->layers->begin()->get()->as<DecoderLayerImpl>();
  EXPECT_NEAR(std_of(layer.mlp->gate_proj->weight), 0.02, 0.002);
  EXPECT_NEAR(std_of(llama->model->embed_tokens->weight), 0.02, 0.002);
  EXPECT_EQ(layer.self_attn->q_proj->bias.abs().sum().item<double>(), 0.0);
  EXPECT_TRUE(torch::equal(layer.attention_in->weight, torch::ones({small_llama().hidden})));
  EXPECT_EQ(llama->model->embed_tokens->weight[3].abs().sum().item<double>(), 0.0);

  const Model loaded = make_decoder_model(small_llama(), {}, [](torch::nn::Module& module) {
    torch::NoGradGuard no_grad;
    for (auto& p : module.parameters()) p.fill_(0.5);
  });
  for (const auto& p : loaded.module->parameters()) EXPECT_TRUE((p == 0.5).all().item<bool>()) << "no init over the weights";
}

// nanoGPT's init: the residual projections N(0, 0.02 / sqrt(2 L)), LayerNorm 1 and 0.
TEST(FamilyLayers, AGpt2IsDrawnByNanoGptsInit) {
  torch::manual_seed(0);
  Gpt2Shape shape;
  shape.vocab = 1000;
  shape.layers = 8;
  shape.heads = 4;
  shape.embd = 128;
  shape.context = 64;
  const Model model = make_gpt2_model(shape, {/*checkpoint=*/true});
  auto* gpt2 = model.module->as<Gpt2Impl>();
  ASSERT_NE(gpt2, nullptr);
  EXPECT_TRUE(gpt2->segments.checkpoint);
  const auto& block = *gpt2->transformer->h->begin()->get()->as<Gpt2BlockImpl>();
  EXPECT_NEAR(std_of(block.mlp->c_fc->weight), 0.02, 0.002);
  EXPECT_NEAR(std_of(block.mlp->c_proj->weight), 0.02 / std::sqrt(16.0), 0.0007);
  EXPECT_TRUE(torch::equal(block.ln_1->weight, torch::ones({128})));
  EXPECT_EQ(block.ln_1->bias.abs().sum().item<double>(), 0.0);
}

// DataParallel replicates by clone(): the family's reset builds, the values are copied.
TEST(FamilyLayers, ACloneHoldsTheSameParameters) {
  torch::manual_seed(0);
  const Model model = make_decoder_model(small_llama(), {});
  const auto copy = model.module->clone();
  const auto ours = model.module->named_parameters(), theirs = copy->named_parameters();
  ASSERT_EQ(ours.size(), theirs.size());
  for (const auto& p : ours) EXPECT_TRUE(torch::equal(p.value(), theirs[p.key()])) << p.key();
}

// make_on keeps the variables the members name; on the device they are on, nothing changes.
TEST(FamilyLayers, MakeOnTheSameDeviceKeepsEverything) {
  torch::manual_seed(0);
  const Model model = make_decoder_model(small_llama(), {});
  auto* llama = model.module->as<DecoderLmImpl>();
  const auto before = llama->model->embed_tokens->weight.clone();
  make_on(*model.module, torch::kCPU);
  EXPECT_TRUE(torch::equal(llama->model->embed_tokens->weight, before));
}

}  // namespace
}  // namespace gpubench
