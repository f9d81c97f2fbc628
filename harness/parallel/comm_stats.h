#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/profile/probe.h"

namespace gpubench {

// One backward pass's communication, in ms from the moment backward began.
struct BucketTiming {
  double launch_ms = 0;    // all of the bucket's gradients were ready; its all-reduce was started
  double complete_ms = 0;  // the all-reduce finished (Gloo: its completion callback)
};
struct StepComm {
  double backward_ms = 0;  // autograd returned
  double finish_ms = 0;    // every bucket waited for and copied back into .grad
  std::vector<BucketTiming> buckets;

  // Time during which at least one all-reduce was in flight (buckets queue behind each
  // other, so their intervals overlap: a plain sum would count the queueing twice).
  double comm_ms() const;
  // The part of comm_ms that ran while autograd was still computing (hidden by backward).
  double hidden_ms() const;
  // What backward waited for after autograd returned: the exposed communication.
  double exposed_ms() const { return finish_ms - backward_ms; }
};

// Collects StepComm for the measured steps of one rank (a Probe: it knows which steps
// are measured) and turns them into that rank's numbers.
class CommRecorder final : public Probe {
 public:
  std::string name() const override { return "ddp_comm"; }
  void step_begin(int, bool measured) override { measuring_ = measured; }
  void record(const StepComm& step);

  // {steps, comm_ms[], hidden_ms[], exposed_ms[], bucket_ms[][]}: raw per-step values,
  // merged across ranks by merge_rank_stats.
  nlohmann::json samples() const;

 private:
  bool measuring_ = false;
  std::vector<StepComm> steps_;
};

// Rank 0's merge of every rank's entry {rank, local_rank, device, step_ms[], samples}
// into the report's result["ddp"] numbers: comm_ms / exposed_comm_ms (summaries pooled
// over ranks and measured steps), overlap_share = hidden / comm, comm_share_of_step =
// comm / step time, exposed_comm_share = exposed / step time (what the step waited for:
// the comm-bound verdict reads it), and per_rank[] with each rank's own summaries (raw
// samples dropped).
nlohmann::json merge_rank_stats(const std::vector<nlohmann::json>& ranks);

}  // namespace gpubench
