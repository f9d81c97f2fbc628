#pragma once
#include <cstdint>

#include "workloads/data/tensor_dataset.h"

namespace gpubench {

// A token stream with structure, for next-token prediction: every token has a few
// likely successors (a fixed random sparse Markov chain) plus a little uniform noise,
// so a language model can learn it and the loss falls well below log(vocab).
// Inputs are [sequences, seq_len] int64; targets are the same windows shifted by one.
TensorDataset make_markov_token_stream(std::int64_t sequences, std::int64_t seq_len, std::int64_t vocab,
                                       std::uint64_t seed);

}  // namespace gpubench
