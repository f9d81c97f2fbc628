#include "core/config/stack_parts.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

using Parts = std::vector<std::string>;

TEST(StackParts, APlainConfigHasNone) {
  EXPECT_EQ(stack_parts(plain_config("mlp", DeviceKind::Cpu)), Parts{});
  EXPECT_EQ(plain_config("mlp", DeviceKind::Cuda).id(), "mlp/cuda/fp32/pinned");
  EXPECT_EQ(stack_parts(Config::parse("mlp/cuda/fp32/pageable")), Parts{}) << "host memory is no part";
}

TEST(StackParts, PrecisionThenTheTechniquesAGraphsFusedAdamIncluded) {
  EXPECT_EQ(stack_parts(Config::parse("resnet50/cuda/amp-bf16/channels-last/graph")),
            (Parts{"amp-bf16", "channels-last", "adam-fused", "graph"}));
  EXPECT_EQ(stack_parts(Config::parse("gpt2/cuda/fp8/ddp-2/acc4/adam-fused/ckpt")),
            (Parts{"fp8", "ddp-2", "acc4", "adam-fused", "ckpt"}));
}

TEST(StackParts, WithoutAPartIsTheRowItIsComparedWith) {
  const Config stack = Config::parse("resnet50/cuda/amp-bf16/channels-last/graph");
  EXPECT_EQ(without_part(stack, "amp-bf16").id(), "resnet50/cuda/fp32/pinned/channels-last/graph");
  EXPECT_EQ(without_part(stack, "graph").id(), "resnet50/cuda/amp-bf16/pinned/adam-fused/channels-last")
      << "graph off leaves its fused Adam, eager";
  EXPECT_EQ(without_part(stack, "adam-fused").id(), stack.id()) << "a graph cannot drop the Adam it replays";
  EXPECT_EQ(without_part(Config::parse("gpt2/cuda/fp8/graph"), "fp8").id(), "gpt2/cuda/amp-bf16/pinned/graph")
      << "fp8 is bf16 autocast plus FP8 matmuls";
  EXPECT_EQ(without_part(Config::parse("mlp/cpu/bf16/ddp-2/acc4"), "ddp-2").id(), "mlp/cpu/bf16/acc4");
  EXPECT_EQ(without_part(Config::parse("mlp/cpu/bf16/ddp-2/acc4"), "acc4").id(), "mlp/cpu/bf16/ddp-2");
  EXPECT_EQ(without_part(Config::parse("mlp/cpu/bf16"), "ckpt").id(), "mlp/cpu/bf16") << "a part it lacks";
  // ep-K off keeps its mode (ep_vs_fsdp); the mode off takes ep-K with it (it borrows its ranks).
  const Config experts = Config::parse("moe/cpu/fp32/fsdp-4/ep-2");
  EXPECT_EQ(without_part(experts, "ep-2").id(), "moe/cpu/fp32/fsdp-4");
  EXPECT_EQ(without_part(experts, "fsdp-4").id(), "moe/cpu/fp32");
}

TEST(StackParts, WithAPartAddsItOrReplacesThePrecision) {
  const Config plain = plain_config("cnn", DeviceKind::Cuda);
  EXPECT_EQ(with_part(plain, "graph").id(), "cnn/cuda/fp32/pinned/graph");
  EXPECT_EQ(with_part(with_part(plain, "amp-fp16"), "amp-bf16").id(), "cnn/cuda/amp-bf16/pinned");
  EXPECT_EQ(with_part(plain, "ddp-8").id(), "cnn/cuda/fp32/pinned/ddp-8");
  EXPECT_EQ(with_part(with_part(plain, "channels-last"), "acc2").id(), "cnn/cuda/fp32/pinned/acc2/channels-last");
  // Every part of a stack, added one by one to the plain config, builds the stack.
  const Config stack = Config::parse("cnn/cuda/amp-bf16/ddp-2/acc4/adam-foreach/channels-last/ckpt");
  Config built = plain;
  for (const auto& part : stack_parts(stack)) built = with_part(built, part);
  EXPECT_EQ(built.id(), stack.id());
  EXPECT_EQ(with_part(Config::parse("moe/cuda/amp-bf16/fsdp-8"), "ep-4").id(), "moe/cuda/amp-bf16/pinned/fsdp-8/ep-4");
}

}  // namespace
}  // namespace gpubench
