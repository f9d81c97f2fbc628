#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/config/config.h"
#include "harness/parallel/comm_stats.h"
#include "harness/parallel/expert_parallel.h"
#include "harness/parallel/gradient_reducer.h"
#include "harness/parallel/sharded_data_parallel.h"
#include "harness/parallel/launch_env.h"
#include "harness/parallel/process_group.h"
#include "harness/parallel/rank_numbers.h"
#include "harness/parallel/shard_sampler.h"

namespace gpubench {

struct DdpSettings {
  ParallelMode mode = ParallelMode::Ddp;  // or zero1, zero2, fsdp: which sync attach() makes
  int world_size = 1;              // the config's N: the launch must have exactly N ranks
  int accumulate = 1;              // micro-batches a step (the communication's theory counts them)
  int expert_parallel = 1;         // ep-K: ranks a group that split the experts (1: none)
  torch::Device device = torch::kCPU;
  double bucket_mb = 25;           // --bucket-mb
  double comm_timeout_s = 60;      // --comm-timeout: joining, every collective, the final gather
  std::uint64_t seed = 42;
};

// One rank's side of one multi-rank config (ddp-N, zero1-N, zero2-N, fsdp-N), in the process
// that trains: joins the process group through the launcher's store, makes every rank
// start from rank 0's parameters, shards the data, averages gradients during backward
// (DDP's reducer, or the sharded modes' ShardedDataParallel), and finally hands this
// rank's numbers to rank 0, which merges them into result["ddp"].
// Every failure throws with the rank and the cause; a broken group is abandoned rather
// than destroyed (its destructor joins backend threads that may still be blocked on a
// dead peer), so the process can report and exit.
class DdpSession {
 public:
  // Reads the launch environment; throws std::runtime_error when it does not describe
  // `settings.world_size` ranks or the group cannot be joined within the timeout.
  static std::unique_ptr<DdpSession> join(const DdpSettings& settings, const LaunchEnv& env);
  ~DdpSession();
  DdpSession(const DdpSession&) = delete;
  DdpSession& operator=(const DdpSession&) = delete;

  int rank() const { return env_.rank; }
  int world_size() const { return env_.world_size; }
  const std::string& backend() const { return backend_; }
  DataShard data_shard() const { return {env_.rank, env_.world_size, settings_.seed}; }

  // Parameters and buffers from rank 0, as DDP's constructor does.
  void broadcast_from_rank0(torch::nn::Module& module);

  // Ranks must all run one step count, but each would judge a time budget on its own
  // clock. After warm-up they agree: the budget over the slowest rank's last warm-up step
  // (one all-reduce, max), within [min_steps, max_steps]. Returns the count.
  int agree_on_step_count(double last_warmup_ms, double budget_s, int min_steps, int max_steps);

  // The hooks that average gradients during backward (and, sharded, gather and free
  // parameters); lives as long as the session. Call once, after broadcast_from_rank0.
  GradientSync& attach(Model& model);
  // What the optimizer steps: the model's parameters (ddp) or this rank's shards.
  std::vector<torch::Tensor> optimizer_parameters(const Model& model) const;
  // The sharded run, or null for ddp.
  ShardedDataParallel* sharded() const { return sharded_.get(); }
  // ep-K's experts, or null without ep.
  ExpertParallel* expert_parallel() const { return experts_.get(); }
  // The GradScaler's inf flag, maxed over the ranks: each sees only its gradient shard,
  // and all must skip (or step) together. `read_on_host`: the host reads the flag next.
  void agree_on_found_inf(torch::Tensor& found_inf, bool read_on_host);
  std::shared_ptr<CommRecorder> recorder() const { return recorder_; }

  // Every rank posts its numbers (step times from its own timer, losses on its shard);
  // rank 0 waits for all and returns result["ddp"] plus the global loss curve (mean of
  // the ranks' losses: the loss of the global batch). Other ranks return nullopt.
  struct Gathered {
    nlohmann::json ddp;
    std::vector<double> global_losses;
  };
  // `parameters`: this rank's trained parameters, whole (a sharded run gathers them first),
  // fingerprinted (parameter_digest) so rank 0 can say whether every rank ended with the
  // same model (result["ddp"]["final_parameters_identical"]): the reduction and the
  // optimizer must keep them equal. `rank_extra`: more of this rank's numbers for its
  // per_rank entry (its memory; a sharded run's digest, made as it gathered its units).
  std::optional<Gathered> gather(const std::vector<double>& step_ms, const std::vector<double>& losses,
                                 std::size_t shard_samples, const std::vector<torch::Tensor>& parameters,
                                 const nlohmann::json& rank_extra = nlohmann::json::object());


 private:
  DdpSession(DdpSettings settings, LaunchEnv env);
  std::chrono::milliseconds timeout() const;
  void mark_failed() { failed_ = true; }
  GradientSync& attach_data_parallel(Model& model);
  std::vector<torch::Tensor> attach_experts(Model& model);

  DdpSettings settings_;
  LaunchEnv env_;
  std::string backend_;
  std::optional<RankNumbersChannel> numbers_;  // gather's: this config's key namespace, sealed
  c10::intrusive_ptr<CollectiveGroup> group_;
  c10::intrusive_ptr<CollectiveGroup> reduce_group_;  // the sharded modes' reduce-scatters'
  std::shared_ptr<CommRecorder> recorder_ = std::make_shared<CommRecorder>();
  std::unique_ptr<GradientReducer> reducer_;
  std::unique_ptr<ShardedDataParallel> sharded_;
  std::unique_ptr<GradientSync> sync_;  // the reducer or the sharded run, as the Trainer sees it
  ExpertGroups expert_groups_;           // ep-K's
  std::unique_ptr<ExpertParallel> experts_;
  std::unique_ptr<GradientSync> expert_sync_;  // sync_ with the experts' reduction after it
  bool failed_ = false;
};

}  // namespace gpubench
