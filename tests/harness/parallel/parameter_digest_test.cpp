#include "harness/parallel/parameter_digest.h"

#include <gtest/gtest.h>

#include <set>

namespace gpubench {
namespace {

std::string digest_of(const std::vector<torch::Tensor>& tensors) { return parameter_digest(tensors); }

// Flips one bit of one byte of a copy of `tensor` (its bytes viewed flat).
torch::Tensor with_bit_flipped(const torch::Tensor& tensor, std::int64_t byte, int bit) {
  torch::Tensor copy = tensor.clone();
  auto* bytes = static_cast<unsigned char*>(copy.data_ptr());
  bytes[byte] ^= static_cast<unsigned char>(1u << bit);
  return copy;
}

TEST(ParameterDigest, EqualModelsHashEqualWhateverTheirLayout) {
  torch::manual_seed(0);
  const torch::Tensor weight = torch::randn({37, 11}), bias = torch::randn({37});
  EXPECT_EQ(digest_of({weight, bias}), digest_of({weight.clone(), bias.clone()}));
  // The same values through a transposed, non-contiguous view: the bytes hashed are the
  // values in order, not the storage.
  const torch::Tensor transposed_storage = weight.t().contiguous().t();
  ASSERT_FALSE(transposed_storage.is_contiguous());
  EXPECT_EQ(digest_of({transposed_storage, bias}), digest_of({weight, bias}));
  EXPECT_EQ(digest_of({weight, bias}).size(), 16u);
}

TEST(ParameterDigest, AnyFlippedBitTellsTheModelsApart) {
  torch::manual_seed(1);
  // 407 fp32 = 1628 bytes: 50 whole 32-byte blocks, a 28-byte tail of three 8-byte words
  // and 4 single bytes; an fp16 tensor of odd length ends on a lone 2-byte element.
  const std::vector<torch::Tensor> tensors = {torch::randn({407}), torch::randn({13}).to(torch::kHalf)};
  const std::string reference = digest_of(tensors);
  std::set<std::string> seen = {reference};
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    const auto bytes = static_cast<std::int64_t>(tensors[t].nbytes());
    for (std::int64_t byte = 0; byte < bytes; ++byte)
      for (int bit : {0, 7}) {  // each byte's lowest and highest bit: every bit of every word
        std::vector<torch::Tensor> changed = tensors;
        changed[t] = with_bit_flipped(tensors[t], byte, bit);
        const std::string digest = digest_of(changed);
        EXPECT_NE(digest, reference) << "tensor " << t << " byte " << byte << " bit " << bit;
        seen.insert(digest);
      }
  }
  // No two of the single-bit changes collide either.
  EXPECT_EQ(seen.size(), 1u + 2u * (407 * 4 + 13 * 2));
}

TEST(ParameterDigest, OrderAndWhereATensorEndsCount) {
  const torch::Tensor a = torch::arange(6, torch::kFloat32), b = torch::arange(6, 10, torch::kFloat32);
  EXPECT_NE(digest_of({a, b}), digest_of({b, a}));
  // The same bytes split differently between two tensors are a different model.
  const torch::Tensor all = torch::cat({a, b});
  EXPECT_NE(digest_of({all.narrow(0, 0, 5), all.narrow(0, 5, 5)}), digest_of({a, b}));
  EXPECT_NE(digest_of({a}), digest_of({a, torch::empty({0})}));
}

TEST(ParameterDigest, HashBytesIsTheSameWhereverTheBytesLie) {
  // A word read unaligned gives the same hash as aligned: ranks differ in where a buffer starts.
  std::vector<unsigned char> aligned(200), shifted(201);
  for (std::size_t i = 0; i < aligned.size(); ++i) aligned[i] = shifted[i + 1] = static_cast<unsigned char>(i * 37 + 5);
  EXPECT_EQ(hash_bytes(aligned.data(), aligned.size(), 9), hash_bytes(shifted.data() + 1, aligned.size(), 9));
  EXPECT_NE(hash_bytes(aligned.data(), aligned.size(), 9), hash_bytes(aligned.data(), aligned.size(), 10));
}

}  // namespace
}  // namespace gpubench
