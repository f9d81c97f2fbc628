#include "workloads/data/synthetic_tokens.h"

#include <array>
#include <random>
#include <stdexcept>

namespace gpubench {
namespace {

// mt19937_64 is specified bit-exactly by the standard; the modulo mappings below (not
// std::*_distribution, which differ between standard libraries) keep data identical on
// every platform.
std::vector<std::int64_t> markov_stream(std::int64_t length, std::int64_t vocab, std::uint64_t seed, bool skewed) {
  constexpr int kSuccessors = 4;
  // Cumulative successor weights 70/15/10/5 %, in per-mille; 5 % of tokens are noise.
  constexpr std::array<std::uint32_t, kSuccessors> kCumulative = {700, 850, 950, 1000};
  constexpr std::uint32_t kNoisePerMille = 50;
  std::mt19937_64 rng(seed);
  const auto n = static_cast<std::uint64_t>(vocab);
  // Skewed: the smallest of three nested uniform draws, P(id) falling roughly as log(vocab / id).
  const auto draw = [&]() -> std::int64_t {
    if (!skewed) return static_cast<std::int64_t>(rng() % n);
    const std::uint64_t inner = rng() % n + 1;
    const std::uint64_t middle = rng() % inner + 1;
    return static_cast<std::int64_t>(rng() % middle);
  };
  std::vector<std::int64_t> successors(static_cast<std::size_t>(vocab * kSuccessors));
  for (auto& token : successors) token = draw();
  std::vector<std::int64_t> stream(static_cast<std::size_t>(length));
  stream[0] = draw();
  for (std::int64_t i = 1; i < length; ++i) {
    const auto roll = static_cast<std::uint32_t>(rng() % 1000);
    if (roll < kNoisePerMille) {
      stream[i] = draw();
      continue;
    }
    const auto pick = static_cast<std::uint32_t>(rng() % 1000);
    int k = 0;
    while (pick >= kCumulative[k]) ++k;
    stream[i] = successors[static_cast<std::size_t>(stream[i - 1] * kSuccessors + k)];
  }
  return stream;
}

}  // namespace

TensorDataset make_markov_token_stream(std::int64_t sequences, std::int64_t seq_len, std::int64_t vocab,
                                       std::uint64_t seed) {
  const std::int64_t length = sequences * seq_len + 1;
  std::vector<std::int64_t> stream = markov_stream(length, vocab, seed, /*skewed=*/false);
  const auto all = torch::from_blob(stream.data(), {length}, torch::kInt64).clone();
  const auto inputs = all.narrow(0, 0, sequences * seq_len).view({sequences, seq_len}).clone();
  const auto targets = all.narrow(0, 1, sequences * seq_len).view({sequences, seq_len}).clone();
  return TensorDataset(inputs, targets, "synthetic(seed=" + std::to_string(seed) + ")");
}

std::vector<std::uint32_t> make_skewed_markov_tokens(std::int64_t length, std::int64_t vocab, std::uint64_t seed) {
  const std::vector<std::int64_t> stream = markov_stream(length, vocab, seed, /*skewed=*/true);
  return std::vector<std::uint32_t>(stream.begin(), stream.end());
}

}  // namespace gpubench
