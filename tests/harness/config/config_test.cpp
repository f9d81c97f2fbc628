#include "config/config.h"

#include <gtest/gtest.h>

#include "config/errors.h"

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
                               "gpt2/cuda/fp8/pinned", "gpt2/cuda/fp8/pinned/acc4/ckpt"})
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
  EXPECT_EQ(ddp.variant, Variant::None);
  EXPECT_EQ(Config::parse("mlp/cpu/fp32/adam-fused").variant, Variant::AdamFused);
  EXPECT_EQ(Config::parse("cnn/cuda/fp32/channels-last").id(), "cnn/cuda/fp32/pinned/channels-last");
  EXPECT_EQ(Config::parse("cnn/cuda/tf32").precision, Precision::Tf32);
  EXPECT_EQ(Config::parse("gpt2/cuda/fp8").precision, Precision::Fp8);
  EXPECT_EQ(Config::parse("gpt2/cuda/fp8").id(), "gpt2/cuda/fp8/pinned");
  EXPECT_EQ(Config::parse("mlp/cuda/fp32/graph").variant, Variant::CudaGraph);
  EXPECT_EQ(Config::parse("mlp/cpu/fp32").accumulate, 1);
  EXPECT_EQ(Config::parse("mlp/cpu/fp32/ddp-2/acc8").accumulate, 8);
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
  expect_rejected("mlp/cpu/amp-fp16", "not a CPU precision");
  expect_rejected("mlp/cuda/bf16", "not a CUDA precision");
  expect_rejected("mlp/cpu/fp32/pinned", "cuda only");
  expect_rejected("mlp/cpu/fp32/dp", "needs device cuda");
  expect_rejected("mlp/cpu/fp32/ddp-0", "rank count");
  expect_rejected("mlp/cpu/fp32/ddp-x", "rank count");
  expect_rejected("mlp/cuda/fp32/pinned/what", "not understood");
  expect_rejected("mlp//fp32", "empty segment");
  expect_rejected("mlp/cuda/amp-fp16/pinned/dp", "fp32 only");
  expect_rejected("mlp/cpu/tf32", "not a CPU precision");
  expect_rejected("mlp/cpu/fp32/channels-last", "image workloads cnn and resnet50 only");
  EXPECT_EQ(Config::parse("resnet50/cuda/fp32/channels-last").id(), "resnet50/cuda/fp32/pinned/channels-last");
  expect_rejected("mlp/cpu/fp32/ddp-2/adam-fused", "single process only");
  expect_rejected("mlp/cpu/fp32/ckpt", "resnet50 (per stage) and gpt2 (per block) only");
  expect_rejected("gpt2/cpu/fp32/ddp-2/ckpt", "single process only");
  expect_rejected("mlp/cpu/fp32/acc1", "2..1024 micro-batches");
  expect_rejected("mlp/cpu/fp32/acc0", "2..1024 micro-batches");
  expect_rejected("mlp/cpu/fp32/acc04", "2..1024 micro-batches");
  expect_rejected("mlp/cpu/fp32/acc2000", "2..1024 micro-batches");
  expect_rejected("mlp/cpu/fp32/accx", "not understood");
  expect_rejected("mlp/cuda/fp32/pinned/acc4/graph", "does not take accK");
  expect_rejected("mlp/cpu/bf16/adam-fused", "fp32 or tf32 (or amp-fp16)");
  expect_rejected("mlp/cuda/amp-bf16/adam-foreach", "fp32 or tf32 (or amp-fp16)");
  expect_rejected("cnn/cuda/amp-fp16/channels-last", "fp32 or tf32, against");
  expect_rejected("mlp/cpu/fp32/graph", "graph (the step captured in a CUDA Graph) needs device cuda");
  expect_rejected("mlp/cuda/amp-fp16/graph", "fp32 or tf32, against");
  expect_rejected("mlp/cuda/fp32/dp/graph", "single process only");
  expect_rejected("mlp/cpu/fp32/adam-fused/adam-foreach", "not understood");
  expect_rejected("gpt2/cpu/fp8", "fp8 runs on cuda only");
  expect_rejected("mlp/cuda/fp8/pinned", "fp8 applies to gpt2 only");
  expect_rejected("resnet50/cuda/fp8/pinned", "fp8 applies to gpt2 only");
  expect_rejected("gpt2/cuda/fp8/pinned/ddp-1", "fp32 only");
  expect_rejected("gpt2/cuda/fp8/pinned/adam-fused", "fp32 or tf32 (or amp-fp16)");
  expect_rejected("gpt2/cuda/fp8/pinned/graph", "fp32 or tf32, against");
}

}  // namespace
}  // namespace gpubench
