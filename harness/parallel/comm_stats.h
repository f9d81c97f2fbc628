#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/profile/probe.h"

namespace gpubench {

enum class CollectiveKind { AllReduce, AllGather, ReduceScatter };
std::string to_string(CollectiveKind kind);  // "all_reduce", "all_gather", "reduce_scatter"

// One collective of a step, in ms from the step's origin (DDP: the moment backward began;
// the sharded modes: the first forward of the step). `bytes` as nccl-tests counts a
// collective's size: the all-reduced buffer, the all-gather's output, the reduce-scatter's
// input.
struct CollectiveTiming {
  double launch_ms = 0;    // issued (DDP: all of the bucket's gradients were ready)
  double complete_ms = 0;  // finished (Gloo: its completion callback; NCCL: the end of its wait)
  CollectiveKind kind = CollectiveKind::AllReduce;
  std::int64_t bytes = 0;
  int subject = 0;  // which bucket (DDP) or unit (the sharded modes) it moved
  // NCCL: its kernel's time on NCCL's stream (NCCL's own start and end events); -1 where
  // not measured (Gloo: its launch-to-completion host interval is the measure).
  double device_ms = -1;
};
struct StepComm {
  double backward_ms = 0;  // autograd returned (the step's last backward)
  double finish_ms = 0;    // every collective waited for and its result in place
  std::vector<CollectiveTiming> collectives;
  // The host time the step spent blocked on collectives, where the sync measures it (the
  // sharded modes wait in forward, backward and after the optimizer too); negative: DDP's
  // one wait, at the end of backward (finish_ms - backward_ms).
  double waited_ms = -1;
  // false where the host never waits for the step's collectives (the sharded modes on
  // NCCL: stream waits only), so no host clock sees the exposed part: exposed and hidden
  // are unknown (-1), and the row says null.
  bool exposed_known = true;

  // Whether every collective has its device time (NCCL).
  bool device_timed() const;
  // Time during which at least one collective was in flight (they queue behind each
  // other, so their intervals overlap: a plain sum would count the queueing twice). Device
  // timed: the sum of their device times (a group's collectives run one after another on
  // its one NCCL stream, so they do not overlap).
  double comm_ms() const;
  // The part of comm_ms that ran while the step computed (hidden by compute); -1 when
  // device timed: that needs when the compute stream waited, which no clock here sees.
  double hidden_ms() const;
  // What the step waited for: the exposed communication; -1 when not known.
  double exposed_ms() const { return !exposed_known ? -1 : waited_ms >= 0 ? waited_ms : finish_ms - backward_ms; }
};

// Collects StepComm for the measured steps of one rank (a Probe: it knows which steps
// are measured) and turns them into that rank's numbers.
class CommRecorder final : public Probe {
 public:
  std::string name() const override { return "ddp_comm"; }
  void step_begin(int, bool measured) override { measuring_ = measured; }
  void record(const StepComm& step);
  // A step recorded after the next one began (the sharded modes on NCCL settle a step at
  // the next one's start): `measured` is that step's own.
  void record(const StepComm& step, bool measured);
  bool measuring() const { return measuring_; }

  // {steps, comm_ms[], hidden_ms[], exposed_ms[], bucket_ms[][], collectives}: raw per-step
  // values, merged across ranks by merge_rank_stats; `collectives` per kind: count and
  // bytes per step (the same every step), and the order of the first measured step's
  // collectives as "kind:subject" items (every rank must issue the same sequence).
  nlohmann::json samples() const;

 private:
  bool measuring_ = false;
  std::vector<StepComm> steps_;
};

// Rank 0's merge of every rank's entry {rank, local_rank, device, step_ms[], samples}
// into the report's result["ddp"] numbers: comm_ms / exposed_comm_ms (summaries pooled
// over ranks and measured steps), overlap_share = hidden / comm (null where a rank's
// collectives were timed on the device: NCCL), comm_share_of_step =
// comm / step time, exposed_comm_share = exposed / step time (what the step waited for:
// the comm-bound verdict reads it), and per_rank[] with each rank's own summaries (raw
// samples dropped).
nlohmann::json merge_rank_stats(const std::vector<nlohmann::json>& ranks);

}  // namespace gpubench
