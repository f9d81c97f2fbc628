#pragma once
// Expert parallel's side in the model (DESIGN.md, "Families are data"): a mixture of
// experts whose experts are split over the K ranks of a group sends each routed token to
// the rank that holds its expert and takes the result back, by all-to-all. The model knows
// only this interface; the harness implements it over a c10d group (harness/parallel/
// expert_parallel.h), so the workloads floor never sees a process group.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <torch/torch.h>

namespace gpubench {

class ExpertExchange {
 public:
  virtual ~ExpertExchange() = default;
  virtual int rank() const = 0;  // this rank's place in its group, 0..size-1
  virtual int size() const = 0;  // K: ranks that share one copy of every expert
  // A collective of the group: rows [0, send[0]) of `rows` go to rank 0, the next send[1]
  // to rank 1, ...; returns the rows every rank sent here, rank 0's first, receive[r] from
  // rank r. `rows` is contiguous; its other dimensions are every rank's.
  virtual torch::Tensor all_to_all(const torch::Tensor& rows, const std::vector<std::int64_t>& send,
                                   const std::vector<std::int64_t>& receive) = 0;
  // Around sparse layer `layer`'s local experts (its place among the sparse layers): their
  // parameters hold full values from before_experts until after_experts, which returns
  // what the layer goes on with (a hook on it may gather them again before their backward;
  // fsdp's experts sharded over their replicas do).
  virtual void before_experts(std::size_t layer) { (void)layer; }
  virtual torch::Tensor after_experts(std::size_t layer, const torch::Tensor& computed) {
    (void)layer;
    return computed;
  }
};

// all_to_all with a gradient: backward sends each row's gradient back where the row came
// from (the same exchange, send and receive swapped), so an expert's weights get the
// gradient of every rank's tokens it computed.
torch::Tensor exchange_rows(ExpertExchange& exchange, const torch::Tensor& rows, const std::vector<std::int64_t>& send,
                            const std::vector<std::int64_t>& receive);

// This rank's experts computed over their rows: (its first expert's index, rows sorted by
// expert, each local expert's count of them, idle ones included) -> outputs in that order.
using LocalExperts =
    std::function<torch::Tensor(std::int64_t first, const torch::Tensor& rows, const std::vector<std::int64_t>& rows_per_expert)>;

// The routed rows of one sparse layer through their experts, with the experts split over
// `exchange`'s group: `sorted_rows` are this rank's (token, slot) rows sorted by expert,
// `counts[e]` of them for expert e (every expert of the layer); this rank holds experts
// [rank * E/K, (rank + 1) * E/K). Sends each rank its experts' rows (the counts first, so
// each knows what it receives), runs the local experts once over the rows of every rank,
// and returns the outputs to their ranks: the result is `sorted_rows`' outputs in their order.
torch::Tensor run_experts_across_ranks(ExpertExchange& exchange, const torch::Tensor& sorted_rows,
                                       const std::vector<std::int64_t>& counts, const LocalExperts& local_experts);

}  // namespace gpubench
