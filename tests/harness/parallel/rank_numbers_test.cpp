// Rank 0 collecting its peers' numbers from the store (issue 61, item 1): a value rewritten
// there by a writer without the run's secret is that rank's failure, named, not its numbers.
#include "harness/parallel/rank_numbers.h"

#include <gtest/gtest.h>

#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include "harness/parallel/launch_store.h"

namespace gpubench {
namespace {

RankNumbersChannel channel_over(const c10::intrusive_ptr<c10d::Store>& store) {
  return {store, "gpubench/matrix/config0", StoreSeal(std::string("the-run-secret-0123456789")), std::chrono::seconds(2)};
}

TEST(RankNumbers, RankZeroGetsEachPeersNumbersAndItsOwnAsItHasThem) {
  const auto store = c10::make_intrusive<c10d::HashStore>();
  const RankNumbersChannel channel = channel_over(store);
  post_rank_numbers(channel, 1, {{"rank", 1}, {"host", "b"}});
  const auto ranks = collect_rank_numbers(channel, 2, {{"rank", 0}, {"host", "a"}});
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0]["host"], "a");
  EXPECT_EQ(ranks[1]["host"], "b");
}

TEST(RankNumbers, NumbersRewrittenInTheStoreFailNamingTheRank) {
  const auto store = c10::make_intrusive<c10d::HashStore>();
  const RankNumbersChannel channel = channel_over(store);
  post_rank_numbers(channel, 1, {{"rank", 1}, {"host", "b"}});
  store->set("rank/1", to_bytes(R"({"rank": 1, "host": "FORGED-HOST"})"));
  try {
    collect_rank_numbers(channel, 2, {{"rank", 0}});
    ADD_FAILURE() << "the forged numbers were accepted";
  } catch (const std::runtime_error& error) {
    const std::string text = error.what();
    EXPECT_NE(text.find("rank 1's numbers failed authentication: it carries no HMAC"), std::string::npos) << text;
    EXPECT_EQ(text.find("FORGED"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace gpubench
