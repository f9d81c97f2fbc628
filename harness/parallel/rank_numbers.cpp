#include "harness/parallel/rank_numbers.h"

#include "harness/parallel/launch_store.h"

namespace gpubench {
namespace {

std::string numbers_key(int rank) { return "rank/" + std::to_string(rank); }

// What the seal binds: the key's whole name, the config's scope included, so a value
// copied from another rank's or another config's key does not open.
std::string sealed_name(const RankNumbersChannel& channel, int rank) {
  return channel.scope + "/ddp/" + numbers_key(rank);
}

}  // namespace

void post_rank_numbers(const RankNumbersChannel& channel, int rank, const nlohmann::json& numbers) {
  channel.store->set(numbers_key(rank), to_bytes(channel.seal.seal(sealed_name(channel, rank), numbers.dump())));
}

std::vector<nlohmann::json> collect_rank_numbers(const RankNumbersChannel& channel, int world_size,
                                                 const nlohmann::json& own) {
  std::vector<nlohmann::json> ranks = {own};
  for (int rank = 1; rank < world_size; ++rank) {
    const std::string key = numbers_key(rank);
    if (!wait_for_key(*channel.store, key, channel.timeout))
      throw std::runtime_error("rank " + std::to_string(rank) + " did not report its numbers within " +
                               std::to_string(channel.timeout.count() / 1000) + " s");
    wait_for_test_gate(*channel.store, key, channel.timeout);
    try {
      ranks.push_back(nlohmann::json::parse(channel.seal.open(sealed_name(channel, rank), to_text(channel.store->get(key)))));
    } catch (const SealBroken& broken) {
      throw std::runtime_error("rank " + std::to_string(rank) + "'s numbers failed authentication: " + broken.what());
    }
  }
  return ranks;
}

}  // namespace gpubench
