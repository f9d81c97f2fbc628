#pragma once
#include <cstdint>

#include <torch/torch.h>

#include "bench/collective_group.h"

namespace gpubench::bench {

// One batch of same-size float32 all-reduces on one rank, run identically by every rank
// (nccl-tests' habit: every result is checked, not only timed). Each iteration writes
// fresh inputs (rank+1) * p(i + iteration) with p small positive integers, so the sum is
// exact in float32 and a skipped, stale or out-of-step all-reduce shows as wrong elements.
class AllreduceRound {
 public:
  // Starts with one untimed, checked all-reduce: connection setup (Gloo pairs, the NCCL
  // communicator) is paid there, not by the first timed iteration.
  AllreduceRound(CollectiveGroup& group, int rank, int world, std::int64_t bytes, torch::Device device);
  // Fills (untimed), lines the ranks up (untimed), all-reduces (timed, returned in
  // seconds), checks (untimed).
  double run_one();
  // Ends the batch: every rank's count of wrong elements, summed over the ranks.
  std::int64_t wrong_elements_all_ranks();

 private:
  torch::Tensor pattern_for(std::int64_t iteration) const;
  void fill(std::int64_t iteration);
  void line_up();
  double all_reduce_timed();
  void check(std::int64_t iteration);

  CollectiveGroup& group_;
  int rank_, world_;
  torch::Device device_;
  // p(i) = (i mod 97) + 1 for i < elements + 97: p(i + shift) is then a slice of it, so
  // fill and check are one pass each (integer mod on every element, every iteration,
  // made the untimed part of a 64 MiB run several times longer than the timed part).
  torch::Tensor pattern_;
  torch::Tensor buffer_, expected_;
  torch::Tensor token_;     // one element, for line_up
  std::int64_t iteration_ = 0;
  std::int64_t wrong_ = 0;
};

}  // namespace gpubench::bench
