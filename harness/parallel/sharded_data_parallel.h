#pragma once
// Sharded data parallel over c10d (docs/sharding.md): each rank owns 1/N of every unit of
// sharding (shard_layout.h) and Adam steps only that shard.
//   zero1  the whole model and its whole gradients on every rank; the gradients are
//          reduce-scattered once per optimizer step (the last micro-batch), as unit after
//          unit completes in backward; the updated shards all-gathered after the step
//          (PyTorch's ZeroRedundancyOptimizer, DeepSpeed stage 1).
//   zero2  as zero1, but each unit's gradients are reduce-scattered as soon as backward
//          has made them, every micro-batch, and dropped: a rank keeps only its gradient
//          shard (DeepSpeed stage 2, FSDP's SHARD_GRAD_OP).
//   fsdp   as zero2, and only the parameter shard is kept: a unit is all-gathered before
//          its forward (the next unit's gather issued while it computes) into the storage
//          its parameters view, and that storage freed after it (so autograd's saved
//          views of the weights let go of it too)
//          (the last unit stays for backward), gathered again before its backward by a
//          hook on its output, and freed once its gradients are reduced. The root unit
//          (what no unit holds: embeddings, head) is gathered from the first forward to
//          the end of backward (FSDP2's fully_shard per block plus the root, with
//          reshard_after_forward=True; ZeRO-3).
// Every rank issues its collectives in one order: gathers in unit order in forward and in
// reverse in backward, reduce-scatters in reverse unit order then the root (a unit done
// early waits for the one before it), so the order does not depend on timing. At most two
// reduce-scatters run at once: a third waits for the oldest, whose gradient copy it frees.
// On Gloo (CPU) each wait blocks the host, bounded by the timeout, and is counted as
// exposed communication. On NCCL every wait of a step orders the current stream after the
// collective and the host goes on, as PyTorch's DDP and FSDP2 do (prefetch overlaps, and
// the host keeps its run-ahead into the optimizer and the next forward); the bound is kept
// at the next step's start, which waits on the host, bounded, for this step's last
// collective of each group (the reduce-scatters have a group of their own, ShardedOptions::
// reduce_group; NCCL runs a group's collectives in order: all of them are done then) and
// only then records the step, with each collective's time on the device. No host clock
// sees the exposed part there: the row says null.
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/config/config.h"
#include "harness/parallel/comm_stats.h"
#include "harness/parallel/gradient_sync.h"
#include "harness/parallel/parameter_digest.h"
#include "harness/parallel/process_group.h"
#include "harness/parallel/shard_layout.h"
#include "harness/parallel/unit_shard.h"
#include "workloads/model.h"

namespace gpubench {

struct ShardedOptions {
  ParallelMode mode = ParallelMode::Fsdp;  // Zero1, Zero2 or Fsdp
  int rank = 0;
  int world_size = 1;
  std::chrono::milliseconds timeout{60000};  // bound on each host wait (Gloo)
  bool stream_waits = false;                 // NCCL: waits order the stream, the host goes on
  bool device_timing = false;                // NCCL: each collective's time from NCCL's own events
  std::function<void()> on_failure;          // lets the owner of the process group abandon it
  // Parameters another sync owns (ep-K's experts): neither sharded nor reduced here.
  std::vector<torch::Tensor> left_out;
  // The reduce-scatters' own group over the same ranks (null: the gathers' group), so that
  // on NCCL they run on a stream of their own and a prefetched all-gather does not queue
  // behind a reduce-scatter in backward (FSDP2's separate all-gather and reduce-scatter streams).
  CollectiveGroup* reduce_group = nullptr;
  // Where the units live (unset: where the parameters are). A model built on the host
  // (Config::model_built_on_host) is flattened from there into each unit's device buffer.
  std::optional<torch::Device> device;
};

// What a rank holds of the model's state, in bytes (distinct storages, counted once).
struct ModelStateBytes {
  std::int64_t parameters = 0, gradients = 0, optimizer = 0;
  std::int64_t total() const { return parameters + gradients + optimizer; }
  nlohmann::json to_json() const;
};

// Counts what `parameters` (and their .grad) and the optimizer's parameters, gradients and
// state hold now, each storage once (zero1's shards view its whole units: not twice).
ModelStateBytes model_state_bytes(const std::vector<torch::Tensor>& parameters, torch::optim::Optimizer& optimizer);

class ShardedDataParallel final : public GradientSync, public UnitHooks {
 public:
  // Lays `model`'s trainable parameters out in its units and keeps this rank's shards;
  // every rank's parameters must hold the same values (rank 0's broadcast). fsdp points
  // the model's forward at these hooks and leaves its parameters' storage freed (0 bytes,
  // their shapes kept) until gathered.
  ShardedDataParallel(Model& model, CollectiveGroup& group, ShardedOptions options, std::shared_ptr<CommRecorder> recorder);
  ~ShardedDataParallel() override;
  ShardedDataParallel(const ShardedDataParallel&) = delete;
  ShardedDataParallel& operator=(const ShardedDataParallel&) = delete;

  // What the optimizer steps: this rank's shard of each unit.
  std::vector<torch::Tensor> optimizer_parameters() const;
  const ShardLayout& layout() const { return layout_; }

  void begin_forward(bool first) override;
  void begin_backward(bool accumulated) override;
  void finish_backward() override;
  bool reduces_every_micro_batch() const override { return options_.mode != ParallelMode::Zero1; }
  void after_optimizer_step() override;

  void before_forward(std::size_t index) override;
  torch::Tensor after_forward(std::size_t index, const torch::Tensor& output) override;

  // A collective (every rank calls it): gathers the whole trained model unit by unit and,
  // given a `digest`, hashes it into it (parameter_digest.h; every rank's must be the same).
  // With `keep` the parameters hold the whole model afterwards (rank 0's checkpoint);
  // without, fsdp frees each unit once hashed, so a rank never holds more than one. The
  // model's forward runs as a plain model's from here on.
  void gather_whole_model(bool keep = true, ParameterDigest* digest = nullptr);
  // A collective: each unit's whole flat buffer of `per_unit` (one tensor a unit, shaped
  // as its shard: an Adam moment), as member views into it (unit, slot -> tensor shaped and
  // strided as that parameter), for a full state on one rank; without `keep`, nothing is
  // kept (a rank that only takes part).
  std::vector<std::vector<torch::Tensor>> gather_member_values(const std::vector<torch::Tensor>& per_unit, bool keep = true);
  // The model's trainable parameters, in the layout's order (index as in the layout).
  const std::vector<torch::Tensor>& parameters() const { return parameters_; }

  // NCCL: waits, bounded, for the last step's last collective and records that step (the
  // next step's start does it; call before reading the recorder or the model). Gloo
  // records each step at its end: nothing to do.
  void settle();

  // fsdp: the parameter bytes (unpadded) kept gathered from forward to backward, gathered
  // once a micro-batch instead of twice: the root unit and the last unit. 0 otherwise.
  std::int64_t kept_for_backward_bytes() const;
  // {mode, layout, gathers, reductions, dtypes, waits}: what the row says of the mode.
  nlohmann::json describe() const;
  // The most parameter bytes fsdp held gathered at once (a gather's buffer counts from its
  // start); zero1 and zero2 hold the whole model always, and count nothing here.
  std::int64_t peak_gathered_bytes() const { return peak_gathered_bytes_; }

 private:
  void on_gradient(std::size_t unit, std::size_t slot);
  void prefetch(std::size_t unit);
  // Whether a wait also blocks the host on NCCL (Gloo's always do).
  enum class HostWait { No, Yes };
  // Which group a collective ran on: each runs its collectives in order on its own stream.
  enum class Lane { Gather = 0, Reduce = 1 };
  void ensure_gathered(std::size_t unit, HostWait host = HostWait::No);
  void release(std::size_t unit);
  void pre_backward(std::size_t unit);
  void launch_ready_reduces();  // with mutex_ held
  void finish_oldest_reduce(HostWait host = HostWait::No);
  void wait(c10d::Work& work, const char* what, std::size_t unit, HostWait host = HostWait::No, Lane lane = Lane::Gather);
  void record_launch(const c10::intrusive_ptr<c10d::Work>& work, CollectiveKind kind, std::int64_t bytes, std::size_t unit);
  void record_step(bool measured);  // step_ into the recorder, with its collectives' device times
  double ms_since_step() const;
  std::size_t root() const { return layout_.units.size() - 1; }
  std::size_t model_units() const { return layout_.has_root ? layout_.units.size() - 1 : layout_.units.size(); }

  using Clock = std::chrono::steady_clock;
  CollectiveGroup& group_;
  ShardedOptions options_;
  CollectiveGroup& reduce_group_;  // options_.reduce_group, or group_
  std::shared_ptr<CommRecorder> recorder_;
  std::vector<torch::Tensor> parameters_;
  ShardLayout layout_;
  std::vector<UnitShard> units_;
  std::vector<std::pair<std::size_t, std::size_t>> slot_of_;  // parameter -> (unit, slot)
  std::vector<std::size_t> reduce_order_;                     // units, in the order they are reduced
  std::vector<bool> ready_;
  std::size_t next_reduce_ = 0;
  std::deque<std::size_t> in_flight_;  // units whose reduce-scatter runs, oldest first
  static constexpr std::size_t kReducesInFlight = 2;
  std::function<void(UnitHooks*)> set_unit_hooks_;  // fsdp: the model's, while its forward calls these hooks
  std::mutex mutex_;  // autograd may run hooks on its own threads
  bool armed_ = false;
  bool accumulated_ = false;
  Clock::time_point step_begin_{};
  StepComm step_;
  double waited_ms_ = 0;
  std::vector<std::shared_ptr<std::atomic<std::int64_t>>> completions_;  // per step_.collectives entry
  // device_timing: the step's collectives, read once all are done (their waits released
  // what they stashed; what a Work still holds is its output, which the unit keeps anyway).
  std::vector<c10::intrusive_ptr<c10d::Work>> works_;
  // NCCL: each lane's last collective of the step, waited only on the stream, and the step
  // itself, until the next step's start (settle) has checked them on the host.
  c10::intrusive_ptr<c10d::Work> last_waited_[2];
  std::size_t last_waited_unit_[2] = {0, 0};
  bool unsettled_ = false, unsettled_measured_ = false;
  std::unordered_map<const c10d::Work*, std::shared_ptr<std::atomic<std::int64_t>>> completion_of_;  // not yet waited
  std::int64_t gathered_bytes_ = 0, peak_gathered_bytes_ = 0;
};

}  // namespace gpubench
