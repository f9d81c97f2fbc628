#include "core/config/config.h"

#include <gtest/gtest.h>

#include "core/config/errors.h"

namespace gpubench {
namespace {

TEST(ConfigId, RoundTripsEveryCanonicalForm) {
  for (const std::string id : {"mlp/cpu/fp32", "mlp/cpu/bf16", "mlp/cpu/fp32/ddp-2", "cnn/cuda/fp32/pageable",
                               "cnn/cuda/fp32/pinned", "cnn/cuda/amp-fp16/pinned", "cnn/cuda/amp-bf16/pinned",
                               "cnn/cuda/fp32/pinned/dp", "transformer/cuda/fp32/pinned/ddp-8", "cnn/cuda/tf32/pinned",
                               "mlp/cpu/fp32/adam-foreach", "mlp/cuda/fp32/pinned/adam-fused", "cnn/cpu/fp32/channels-last",
                               "cnn/cuda/tf32/pinned/channels-last", "mlp/cuda/fp32/pinned/graph",
                               "cnn/cuda/tf32/pinned/graph", "mlp/cuda/amp-fp16/pinned/adam-fused", "mlp/cpu/fp32/acc4",
                               "mlp/cpu/fp32/ddp-2/acc4", "gpt2/cuda/amp-bf16/pinned/acc16",
                               "mlp/cuda/fp32/pinned/acc2/adam-fused", "gpt2/cpu/fp32/ckpt",
                               "resnet50/cuda/amp-bf16/pinned/ckpt", "gpt2/cuda/fp32/pinned/acc4/ckpt",
                               "gpt2/cuda/fp8/pinned", "gpt2/cuda/fp8/pinned/acc4/ckpt",
                               "moe/cuda/amp-bf16/pinned/fsdp-8/ep-8", "moe/cpu/fp32/ddp-4/ep-2/acc2"})
    EXPECT_EQ(Config::parse(id).id(), id);
}

TEST(ConfigId, CudaHostMemoryDefaultsToPinned) {
  EXPECT_EQ(Config::parse("cnn/cuda/amp-fp16").id(), "cnn/cuda/amp-fp16/pinned");
  EXPECT_EQ(Config::parse("transformer/cuda/fp32/ddp-1").id(), "transformer/cuda/fp32/pinned/ddp-1");
}

TEST(ConfigId, ParsesFields) {
  const Config config = Config::parse("cnn/cuda/fp32/pageable");
  EXPECT_EQ(config.workload, "cnn");
  EXPECT_EQ(config.device, DeviceKind::Cuda);
  EXPECT_EQ(config.precision, Precision::Fp32);
  EXPECT_EQ(config.host_memory, HostMemory::Pageable);
  EXPECT_EQ(config.parallel, ParallelMode::Single);
  const Config ddp = Config::parse("mlp/cpu/fp32/ddp-4");
  EXPECT_EQ(ddp.parallel, ParallelMode::Ddp);
  EXPECT_EQ(ddp.world_size, 4);
  EXPECT_TRUE(ddp.technique_segments() == std::vector<std::string>{"ddp-4"});
  EXPECT_EQ(Config::parse("mlp/cpu/fp32/adam-fused").adam, AdamKernel::Fused);
  EXPECT_EQ(Config::parse("cnn/cuda/fp32/channels-last").id(), "cnn/cuda/fp32/pinned/channels-last");
  EXPECT_EQ(Config::parse("cnn/cuda/tf32").precision, Precision::Tf32);
  EXPECT_EQ(Config::parse("gpt2/cuda/fp8").precision, Precision::Fp8);
  EXPECT_EQ(Config::parse("gpt2/cuda/fp8").id(), "gpt2/cuda/fp8/pinned");
  EXPECT_TRUE(Config::parse("mlp/cuda/fp32/graph").graph);
  EXPECT_EQ(Config::parse("mlp/cuda/fp32/graph").adam_kernel(), AdamKernel::Fused) << "a graph replays fused Adam";
  EXPECT_EQ(Config::parse("mlp/cpu/fp32").accumulate, 1);
  EXPECT_EQ(Config::parse("mlp/cpu/fp32/ddp-2/acc8").accumulate, 8);
}

// A config is a set: the segments after the precision come in any order, and print in one.
TEST(ConfigId, TechniquesComposeInAnyOrderAndPrintCanonically) {
  const Config stack = Config::parse("resnet50/cuda/amp-bf16/graph/channels-last/adam-fused");
  EXPECT_EQ(stack.id(), "resnet50/cuda/amp-bf16/pinned/channels-last/graph") << "graph implies adam-fused";
  EXPECT_TRUE(stack.channels_last && stack.graph);
  EXPECT_EQ(Config::parse("gpt2/cuda/amp-bf16/ckpt/ddp-8/acc4/adam-fused").id(), "gpt2/cuda/amp-bf16/pinned/ddp-8/acc4/adam-fused/ckpt");
  EXPECT_EQ(Config::parse("mlp/cpu/bf16/adam-foreach/ddp-2").id(), "mlp/cpu/bf16/ddp-2/adam-foreach");
  EXPECT_EQ(Config::parse("cnn/cuda/amp-fp16/adam-fused/pageable").id(), "cnn/cuda/amp-fp16/pageable/adam-fused");
  for (const std::string id : {"gpt2/cuda/fp8/pinned/ddp-2/adam-fused/ckpt", "mlp/cuda/amp-fp16/pinned/graph",
                               "cnn/cpu/bf16/acc4/adam-fused/channels-last/ckpt", "mlp/cuda/amp-bf16/pinned/dp/adam-foreach",
                               "gpt2/cuda/fp8/pinned/graph", "cnn/cuda/tf32/pinned/ddp-1/channels-last"})
    EXPECT_EQ(Config::parse(id).id(), id);
}

TEST(ConfigId, CompileIsTheLastSegmentAndComposesWithTheAdamKernels) {
  const Config compiled = Config::parse("mlp/cpu/bf16/compile/adam-fused");
  EXPECT_TRUE(compiled.compile);
  EXPECT_EQ(compiled.id(), "mlp/cpu/bf16/adam-fused/compile");
  EXPECT_EQ(Config::parse("gpt2/cpu/fp32/compile").technique_segments(), std::vector<std::string>{"compile"});
}

void expect_rejected(const std::string& id, const std::string& fragment) {
  try {
    Config::parse(id);
    FAIL() << id << " was accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(id), std::string::npos) << "message must name the id: " << error.what();
  }
}

TEST(ConfigId, RejectsBadIdsNamingTheProblem) {
  expect_rejected("mlp/cpu", "segments");
  expect_rejected("mlp/tpu/fp32", "device 'tpu'");
  expect_rejected("mlp/cpu/fp16", "precision 'fp16' is unknown");
  expect_rejected("mlp/cpu/amp-fp16", "amp-fp16 with cpu: amp-fp16 is CUDA autocast");
  expect_rejected("mlp/cuda/bf16", "bf16 with cuda");
  expect_rejected("mlp/cpu/fp32/pinned", "applies to cuda only");
  expect_rejected("mlp/cpu/fp32/dp", "it needs device cuda");
  expect_rejected("mlp/cpu/fp32/ddp-0", "rank count");
  expect_rejected("mlp/cpu/fp32/ddp-x", "rank count");
  // One grammar for every number of an id (issue 61, item 10): no leading zeros, as accK.
  expect_rejected("mlp/cpu/fp32/fsdp-02", "'fsdp-02' needs a rank count 1..1024 without leading zeros");
  expect_rejected("mlp/cpu/fp32/zero1-0002", "rank count");
  expect_rejected("mlp/cpu/fp32/ddp-+2", "rank count");
  expect_rejected("mlp/cuda/fp32/pinned/what", "not understood");
  expect_rejected("mlp//fp32", "empty segment");
  expect_rejected("mlp/cpu/tf32", "tf32 with cpu");
  expect_rejected("mlp/cpu/fp32/acc1", "2..1024 micro-batches");
  expect_rejected("mlp/cpu/fp32/acc0", "2..1024 micro-batches");
  expect_rejected("mlp/cpu/fp32/acc04", "2..1024 micro-batches");
  expect_rejected("mlp/cpu/fp32/acc2000", "2..1024 micro-batches");
  expect_rejected("mlp/cpu/fp32/accx", "not understood");
  expect_rejected("mlp/cuda/fp32/pinned/acc4/graph", "graph with accK: graph captures one whole step");
  expect_rejected("mlp/cpu/fp32/graph", "graph with cpu");
  expect_rejected("mlp/cuda/fp32/dp/graph", "graph with dp");
  expect_rejected("mlp/cuda/fp32/ddp-1/graph", "graph with ddp-N");
  expect_rejected("gpt2/cuda/fp32/ckpt/graph", "graph with ckpt");
  expect_rejected("mlp/cuda/fp32/adam-foreach/graph", "graph with adam-foreach");
  expect_rejected("mlp/cpu/fp32/adam-fused/adam-foreach", "adam-foreach with adam-fused");
  expect_rejected("mlp/cuda/fp32/pinned/pageable", "pinned with pageable");
  expect_rejected("mlp/cuda/fp32/dp/ddp-2", "dp with ddp-N");
  expect_rejected("mlp/cpu/fp32/ddp-2/ddp-4", "sets what another segment set already");
  expect_rejected("mlp/cpu/fp32/ckpt/ckpt", "given twice");
  expect_rejected("gpt2/cpu/fp8", "fp8 with cpu");
  expect_rejected("mlp/cuda/fp32/compile", "compile with cuda");
  expect_rejected("mlp/cpu/fp32/fsdp-2/compile", "compile with fsdp-N");
  expect_rejected("gpt2/cpu/fp32/ckpt/compile", "compile with ckpt");
}

}  // namespace
}  // namespace gpubench
