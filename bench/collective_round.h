#pragma once
#include <cstdint>

#include <torch/torch.h>

#include "bench/collective_group.h"
#include "bench/collectives.h"

namespace gpubench::bench {

// One batch of same-size float32 collectives of one kind on one rank, run identically by
// every rank (nccl-tests' habit: every result is checked, not only timed). Each iteration
// writes fresh inputs from p(i + iteration) (collectives.h says how each kind writes and
// checks them), so a skipped, stale, misplaced or out-of-step collective shows as wrong
// elements.
class CollectiveRound {
 public:
  // Starts with one untimed, checked collective: connection setup (Gloo pairs, the NCCL
  // communicator) is paid there, not by the first timed iteration.
  CollectiveRound(const Collective& collective, CollectiveGroup& group, int rank, int world, std::int64_t bytes,
                  torch::Device device);
  // Fills (untimed), lines the ranks up (untimed), runs the collective (timed, returned in
  // seconds), checks (untimed).
  double run_one();
  // Ends the batch: every rank's count of wrong elements, summed over the ranks.
  std::int64_t wrong_elements_all_ranks();
  // The size nccl-tests counts for this round (algbw's numerator).
  std::int64_t counted_bytes() const { return buffers_.counted_bytes; }

 private:
  void line_up();
  double collective_timed();
  void check(std::int64_t iteration);

  const Collective& collective_;
  CollectiveGroup& group_;
  int rank_, world_;
  torch::Device device_;
  CollectiveBuffers buffers_;
  CheckPattern pattern_;
  torch::Tensor input_, output_, expected_;
  torch::Tensor token_;  // one element, for line_up
  std::int64_t iteration_ = 0;
  std::int64_t wrong_ = 0;
};

}  // namespace gpubench::bench
