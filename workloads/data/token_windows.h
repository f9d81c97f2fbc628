#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/data/dataset.h"

namespace gpubench {

struct TokenWindowOptions {
  std::int64_t windows = 0;   // samples: the preset's dataset size
  std::int64_t context = 0;   // tokens a sample's input holds; a window is context + 1 tokens
  std::uint64_t seed = 0;     // where the windows start
  std::int64_t vocab = 0;     // every id must be below it
  bool full_check = true;     // scan every id now (else only the size)
  std::string data_flag = "--data gpt2";  // how the user named the file, for messages
};

// A token file's bytes per id, decided by the vocabulary: 2 (nanoGPT's uint16 train.bin)
// for at most 65536 ids, 4 (uint32, the same layout) for more, such as Llama 3's 128256.
inline int token_bytes_for(std::int64_t vocab) { return vocab > 65536 ? 4 : 2; }

// Random windows of a token stream, as nanoGPT's get_batch: sample i starts at a
// position drawn from (seed, i), its input the window's first `context` tokens and its
// target the same shifted by one (int64). Each window's ids are checked as it is read.

// A nanoGPT train.bin (uint16 ids in the machine's byte order, as numpy's tofile writes
// them), or its uint32 twin (token_bytes_for(vocab) 4), memory-mapped. Refused up front (UsageError
// naming the file): not a regular file, a byte count that is not a whole number of ids,
// fewer tokens than one window, an id >= vocab, named with its byte offset (full_check; as
// 4-byte ids, with the two uint16 ids it would be: a nanoGPT file under a vocabulary over
// 65536 is the likely cause). A file that
// shrinks or holds a bad id mid-run fails the read with a std::runtime_error naming it.
std::shared_ptr<const SampleReader> open_token_file(const std::string& path, const TokenWindowOptions& options);

// The same windows over a stream held in memory (the synthetic data).
std::shared_ptr<const SampleReader> synthetic_token_windows(std::vector<std::uint32_t> tokens,
                                                            const TokenWindowOptions& options);

// A language model's samples: the token file at `data_path` (--data), or, with none, a
// synthetic skewed Markov stream (synthetic_tokens.h) over ids below `synthetic_vocab`
// (a tokenizer's real vocabulary, where the model's is padded past it), read through the
// same windows.
std::shared_ptr<const SampleReader> token_lm_samples(const std::string& data_path, const TokenWindowOptions& options,
                                                     std::int64_t synthetic_vocab);

}  // namespace gpubench
