#pragma once
// The collectives gpubench-bench measures, one row of functions each, as nccl-tests has one
// binary per collective: what its size counts, its bus factor, how it is issued, and how
// every rank's input is written and its output checked. The benchmark, its rounds and the
// peers read this table; nothing else knows which collective runs.
//
//   name           c10d call                        size (nccl-tests)  busbw / algbw
//   allreduce      allreduce (SUM, in place)        the buffer         2(N-1)/N
//   allgather      _allgather_base (out = N x in)   the output         (N-1)/N
//   reducescatter  _reduce_scatter_base (SUM,       the input          (N-1)/N
//                  in = N x out)
#include <cstdint>
#include <string>
#include <vector>

#include <torch/csrc/distributed/c10d/Work.hpp>
#include <torch/torch.h>

#include "harness/parallel/process_group.h"

namespace gpubench::bench {

// The checks' values: p(i) = (i mod 97) + 1, small positive integers, so that every sum a
// collective makes (at most 97 * N(N+1)/2) is an integer float32 holds exactly up to N =
// 580 ranks and any wrong, stale or misplaced element shows. Built once a round: p(i +
// shift) is a slice of it, so each fill and check is one pass (an integer mod on every
// element, every iteration, made the untimed part of a 64 MiB run several times longer
// than the timed part).
class CheckPattern {
 public:
  static constexpr std::int64_t kModulus = 97;
  CheckPattern(std::int64_t longest, torch::Device device);
  // p(shift), ..., p(shift + length - 1), a view; any shift, negative included.
  torch::Tensor values(std::int64_t shift, std::int64_t length) const;

 private:
  torch::Tensor values_;
};

// One rank's buffers for a benchmark size, and the size nccl-tests counts for it.
struct CollectiveBuffers {
  std::int64_t input_elements = 0;
  std::int64_t output_elements = 0;
  bool in_place = false;          // the output is the input (all-reduce)
  std::int64_t counted_bytes = 0;  // algbw = counted_bytes / time
};

struct Collective {
  const char* name;         // the benchmark's area and the ceilings' key prefix (ceilings_file.h)
  const char* description;  // in messages: "all-gather"
  // Float32 buffers for a size of about `bytes`: all-gather and reduce-scatter round it
  // down to a multiple of N elements (at least N), as nccl-tests does.
  CollectiveBuffers (*buffers)(std::int64_t bytes, int world);
  // busbw = algbw x bus_factor(N): what each rank's link carries in a ring, so that numbers
  // compare across rank counts and with a link's bandwidth.
  double (*bus_factor)(int world);
  // Writes this rank's input for `shift` (untimed) ...
  void (*fill)(torch::Tensor& input, const CheckPattern& pattern, int rank, int world, std::int64_t shift);
  // ... and what its output must then be, exactly.
  void (*expect)(torch::Tensor& expected, const CheckPattern& pattern, int rank, int world, std::int64_t shift);
  // Issues the collective (the output is the input for an in-place one).
  c10::intrusive_ptr<c10d::Work> (*issue)(gpubench::CollectiveGroup& group, torch::Tensor& input, torch::Tensor& output);
};

// What a checked batch reports: the gigabytes each collective moved (algbw's numerator) and
// its bus gigabytes (busbw's), or, when any element on any rank was wrong, only why: a wrong
// result has no bandwidth.
struct BatchReport {
  std::string error;
  double gigabytes = 0;
  double bus_gigabytes = 0;
};
BatchReport report_batch(const Collective& collective, std::int64_t wrong_elements, std::int64_t counted_bytes,
                         int world);

// allreduce, allgather, reducescatter, in the order they are registered.
const std::vector<Collective>& collectives();

// The row named `name`; throws std::invalid_argument naming the known ones.
const Collective& collective_named(const std::string& name);

}  // namespace gpubench::bench
