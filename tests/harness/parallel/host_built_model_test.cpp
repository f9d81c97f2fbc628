#include "harness/parallel/host_built_model.h"

#include <gtest/gtest.h>

#include "harness/parallel/storage_bytes.h"

namespace gpubench {
namespace {

// Rank 0's broadcast of a model built on the host goes through the device in pieces: every
// element is seen once, in order, and what the device made of it comes back.
TEST(HostBuiltModel, ThroughDeviceCoversATensorInPiecesAndCopiesThemBack) {
  const torch::Tensor values = torch::arange(10, torch::kFloat32);
  std::vector<std::int64_t> pieces;
  through_device(
      values, torch::kCPU, [&](torch::Tensor& piece) {
        pieces.push_back(piece.numel());
        piece.add_(100);
      },
      /*piece_bytes=*/16);
  EXPECT_EQ(pieces, (std::vector<std::int64_t>{4, 4, 2}));
  EXPECT_TRUE(torch::equal(values, torch::arange(100, 110, torch::kFloat32)));
  // A channels-last weight has no flat view in its order: staged whole.
  const torch::Tensor weight = torch::zeros({2, 3, 2, 2}).contiguous(torch::MemoryFormat::ChannelsLast);
  int calls = 0;
  through_device(
      weight, torch::kCPU, [&](torch::Tensor& piece) {
        ++calls;
        piece.fill_(1);
      },
      /*piece_bytes=*/16);
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(torch::equal(weight, torch::ones({2, 3, 2, 2})));
}

// A freed tensor (an expert another rank holds) reaches the device unallocated: its shape
// and strides kept, no bytes, filled later from that device's allocator by a gather. Only the
// CPU is here: LibTorch's set_data takes a CPU tensor's data from a CUDA one (dense to dense,
// as Module.to does) but not from a meta one, so the move itself is the GPU run's to show.
TEST(HostBuiltModel, AFreedTensorArrivesUnallocatedAndCanBeFilledThere) {
  const torch::Tensor expert = torch::randn({3, 4}).t();  // strides (1, 4)
  free_storage_bytes(expert);
  const torch::Tensor there = unallocated_on(expert, torch::kCPU);
  EXPECT_EQ(there.sizes(), expert.sizes());
  EXPECT_EQ(there.strides(), expert.strides());
  EXPECT_EQ(there.storage().nbytes(), 0u);
  allocate_storage_bytes(there, 12 * sizeof(float));
  EXPECT_EQ(there.fill_(2).sum().item<float>(), 24.0f);
}

// Every config calls move_remaining_to after attaching: where the model already lives on the
// device (a CPU rank, a GPU rank of ddp or zero), nothing moves, and a freed tensor is not
// allocated again.
TEST(HostBuiltModel, WhereTheModelAlreadyLivesNothingMovesAndNothingIsAllocated) {
  torch::nn::Linear kept(4, 3), freed(5, 2);
  torch::nn::Sequential model(kept, freed, torch::nn::BatchNorm1d(3));
  const void* weight = kept->weight.data_ptr();
  free_storage_bytes(freed->weight);
  move_remaining_to(*model, torch::kCPU);
  EXPECT_EQ(kept->weight.data_ptr(), weight);
  EXPECT_EQ(freed->weight.storage().nbytes(), 0u);
  EXPECT_EQ(freed->weight.sizes(), (std::vector<std::int64_t>{2, 5}));
}

}  // namespace
}  // namespace gpubench
