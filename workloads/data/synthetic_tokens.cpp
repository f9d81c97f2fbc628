#include "workloads/data/synthetic_tokens.h"

#include <array>
#include <random>
#include <vector>

namespace gpubench {

TensorDataset make_markov_token_stream(std::int64_t sequences, std::int64_t seq_len, std::int64_t vocab,
                                       std::uint64_t seed) {
  constexpr int kSuccessors = 4;
  // Cumulative successor weights 70/15/10/5 %, in per-mille; 5 % of tokens are uniform noise.
  constexpr std::array<std::uint32_t, kSuccessors> kCumulative = {700, 850, 950, 1000};
  constexpr std::uint32_t kNoisePerMille = 50;
  // mt19937_64 is specified bit-exactly by the standard; the modulo mapping below (not
  // std::*_distribution, which differ between standard libraries) keeps data identical
  // on every platform.
  std::mt19937_64 rng(seed);
  const auto uniform = [&](std::uint64_t n) { return static_cast<std::int64_t>(rng() % n); };
  std::vector<std::int64_t> successors(static_cast<std::size_t>(vocab * kSuccessors));
  for (auto& token : successors) token = uniform(static_cast<std::uint64_t>(vocab));

  const std::int64_t length = sequences * seq_len + 1;
  std::vector<std::int64_t> stream(static_cast<std::size_t>(length));
  stream[0] = uniform(static_cast<std::uint64_t>(vocab));
  for (std::int64_t i = 1; i < length; ++i) {
    const auto roll = static_cast<std::uint32_t>(rng() % 1000);
    if (roll < kNoisePerMille) {
      stream[i] = uniform(static_cast<std::uint64_t>(vocab));
      continue;
    }
    const auto pick = static_cast<std::uint32_t>(rng() % 1000);
    int k = 0;
    while (pick >= kCumulative[k]) ++k;
    stream[i] = successors[static_cast<std::size_t>(stream[i - 1] * kSuccessors + k)];
  }
  const auto all = torch::from_blob(stream.data(), {length}, torch::kInt64).clone();
  const auto inputs = all.narrow(0, 0, sequences * seq_len).view({sequences, seq_len}).clone();
  const auto targets = all.narrow(0, 1, sequences * seq_len).view({sequences, seq_len}).clone();
  return TensorDataset(inputs, targets);
}

}  // namespace gpubench
