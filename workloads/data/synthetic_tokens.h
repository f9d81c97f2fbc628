#pragma once
#include <cstdint>
#include <vector>

#include "workloads/data/tensor_dataset.h"

namespace gpubench {

// A token stream with structure, for next-token prediction: every token has a few
// likely successors (a fixed random sparse Markov chain) plus a little noise, so a
// language model can learn it and the loss falls well below log(vocab).
// Inputs are [sequences, seq_len] int64; targets are the same windows shifted by one.
// Successors and noise are uniform over the vocabulary.
TensorDataset make_markov_token_stream(std::int64_t sequences, std::int64_t seq_len, std::int64_t vocab,
                                       std::uint64_t seed);

// The same chain over a large vocabulary (GPT-2's 50257, Llama 3's 128256), as the ids a
// token file holds: successors and noise are drawn skewed towards low ids (roughly as
// word frequencies fall off), so a model finds the frequent tokens within a few steps
// and the loss falls early, not only once it has seen every token's successors.
std::vector<std::uint32_t> make_skewed_markov_tokens(std::int64_t length, std::int64_t vocab, std::uint64_t seed);

}  // namespace gpubench
