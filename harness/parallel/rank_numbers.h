#pragma once
// A multi-rank config's last exchange (DdpSession::gather): every rank posts its numbers,
// its per_rank entry, to the rendezvous store, and rank 0 reads its peers'. Each value is
// sealed under the run's secret (store_seal.h): the store answers any local user, and a
// value rewritten there must fail the config, not become a rank's host, pid, losses or
// parameter digest in the report.
#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "harness/parallel/store_seal.h"

namespace gpubench {

// `store`: the config's key namespace (`scope` + "/ddp/"), under which the key is "rank/R".
struct RankNumbersChannel {
  c10::intrusive_ptr<c10d::Store> store;
  std::string scope;  // the config's prefix (GPUBENCH_STORE_PREFIX), bound into every seal
  StoreSeal seal;
  std::chrono::milliseconds timeout{60000};
};

void post_rank_numbers(const RankNumbersChannel& channel, int rank, const nlohmann::json& numbers);

// Rank 0: every rank's numbers in rank order, its own (`own`) as it has them, not read
// back. Throws std::runtime_error naming the rank: one that posted nothing within the
// timeout, or whose value failed authentication ("rank 1's numbers failed authentication:
// ...", never quoting the value).
std::vector<nlohmann::json> collect_rank_numbers(const RankNumbersChannel& channel, int world_size,
                                                 const nlohmann::json& own);

}  // namespace gpubench
