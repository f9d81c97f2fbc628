// Each workload's FLOP formula against a count done by hand from its definition
// (workloads/*.h), and the convolution rule against stride, padding, groups, dilation.
#include "workloads/model_flops.h"

#include <gtest/gtest.h>

#include "workloads/cnn.h"
#include "workloads/gpt2.h"
#include "workloads/mlp.h"
#include "workloads/resnet50.h"
#include "workloads/transformer.h"

namespace gpubench {
namespace {

TEST(ModelFlops, Conv2dCountsItsOutputSizeStridePaddingGroupsAndDilation) {
  // 8 -> 16 channels, 3x3, stride 2, padding 1, 4 groups, on 10x10: 5x5 out, each output
  // element sums 8/4 = 2 channels x 9 taps.
  const torch::nn::Conv2d grouped(torch::nn::Conv2dOptions(8, 16, 3).stride(2).padding(1).groups(4));
  const Conv2dCost cost = conv2d_cost(grouped, 10, 10);
  EXPECT_EQ(cost.height, 5);
  EXPECT_EQ(cost.width, 5);
  EXPECT_EQ(cost.macs, 5 * 5 * 16 * 2 * 9);
  // Dilation 2 spans 5 pixels: 10 - 4 = 6 outputs a side without padding.
  const torch::nn::Conv2d dilated(torch::nn::Conv2dOptions(3, 4, 3).dilation(2));
  EXPECT_EQ(conv2d_cost(dilated, 10, 10).height, 6);
  EXPECT_EQ(conv2d_cost(dilated, 10, 10).macs, 6 * 6 * 4 * 3 * 9);
}

TEST(ModelFlops, MlpIsItsThreeLinearLayers) {
  const std::int64_t by_hand = 784 * 1024 + 1024 * 1024 + 1024 * 10;  // 1,861,632
  EXPECT_EQ(Mlp()->forward_macs_per_sample(), by_hand);
  EXPECT_EQ(MlpWorkload().forward_macs_per_sample(), by_hand);
  EXPECT_EQ(training_flops(by_hand), 6 * by_hand) << "2 FLOPs a multiply-add, backward twice the forward";
}

TEST(ModelFlops, CnnCountsEveryConvolutionAtTheSizeItSees) {
  const std::int64_t stem = 32 * 32 * 32 * (3 * 9);                              // 32x32 out, 3->32
  const std::int64_t block1 = 2 * (32 * 32 * 32 * (32 * 9));                      // two 32->32 at 32x32
  const std::int64_t block2 = 16 * 16 * 64 * (32 * 9) + 16 * 16 * 64 * (64 * 9)  // stride 2: 16x16
                              + 16 * 16 * 64 * 32;                                // 1x1 projection
  const std::int64_t block3 = 8 * 8 * 128 * (64 * 9) + 8 * 8 * 128 * (128 * 9) + 8 * 8 * 128 * 64;
  const std::int64_t head = 128 * 10;
  const std::int64_t by_hand = stem + block1 + block2 + block3 + head;  // 49,120,512
  EXPECT_EQ(by_hand, 49120512);
  EXPECT_EQ(CnnWorkload().forward_macs_per_sample(), by_hand);
  // A larger input costs more, by the area for every convolution (the head stays).
  EXPECT_EQ(Cnn()->forward_macs_per_sample(64, 64) - head, 4 * (by_hand - head));
}

TEST(ModelFlops, TransformerCountsProjectionsMlpAttentionMatmulsAndHeadPerSequenceLength) {
  const std::int64_t d = 256, ffn = 1024, vocab = 4096, layers = 4;
  const auto by_hand = [&](std::int64_t seq) {
    const std::int64_t per_layer = seq * (4 * d * d + 2 * d * ffn) + 2 * seq * seq * d;
    return layers * per_layer + seq * d * vocab;
  };
  EXPECT_EQ(by_hand(128), 570425344);
  EXPECT_EQ(TransformerWorkload().forward_macs_per_sample(), by_hand(128));
  EXPECT_EQ(Transformer()->forward_macs_per_sample(64), by_hand(64)) << "a shorter sequence changes the count";
}

TEST(ModelFlops, ResNet50CountsEveryConvolutionAndTheHeadAsTorchvisionsModelRuns) {
  // Per stage: blocks x (1x1 in->p, 3x3 p->p, 1x1 p->4p) at the stage's output size, the
  // first block's 3x3 and downsample with the stride, on the stage's input size.
  const auto stage = [](std::int64_t in, std::int64_t planes, std::int64_t blocks, std::int64_t size_in, std::int64_t stride) {
    const std::int64_t size = size_in / stride, out = 4 * planes;
    std::int64_t macs = size_in * size_in * planes * in                 // first 1x1 (before the stride)
                        + size * size * planes * planes * 9 + size * size * out * planes  // 3x3 with stride, 1x1 up
                        + size * size * out * in;                       // downsample 1x1 with stride
    macs += (blocks - 1) * (size * size * planes * out + size * size * planes * planes * 9 + size * size * out * planes);
    return macs;
  };
  const std::int64_t stem = 112 * 112 * 64 * 3 * 49;
  const std::int64_t by_hand = stem + stage(64, 64, 3, 56, 1) + stage(256, 128, 4, 56, 2) + stage(512, 256, 6, 28, 2) +
                               stage(1024, 512, 3, 14, 2) + 2048 * 1000;
  // torchvision's resnet50 with forward hooks on every Conv2d/Linear counts the same
  // (tests/workloads/reference_outputs.py's model, one 224x224 image): 4,089,184,256.
  EXPECT_EQ(by_hand, 4089184256);
  EXPECT_EQ(ResNet50Workload().forward_macs_per_sample(), by_hand);
}

TEST(ModelFlops, Gpt2IsNanoGptsSixNPlusTwelveLHQTPerToken) {
  const std::int64_t n = 124475904 - 1024 * 768;  // get_num_params(): without position embeddings
  const std::int64_t per_token = 6 * n + 12 * 12 * 12 * 64 * 1024;  // 6N + 12 L H Q T
  EXPECT_EQ(per_token, 855383040);
  const Gpt2Workload gpt2;
  EXPECT_EQ(training_flops(gpt2.forward_macs_per_sample()), per_token * 1024) << "a sample is 1024 tokens";
  EXPECT_NE(gpt2.flops_convention().find("6 N + 12 L H Q T"), std::string::npos);
  EXPECT_EQ(gpt2.tokens_per_sample(), 1024);
}

}  // namespace
}  // namespace gpubench
