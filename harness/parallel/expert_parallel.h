#pragma once
// Expert parallel (ep-K, docs/sharding.md "Expert parallel"): the N ranks of a multi-rank
// mode form N/K groups of K consecutive ranks; each rank of a group holds E/K of every
// sparse layer's experts (rank r of its group: experts [r E/K, (r+1) E/K)), and routed
// tokens travel to their expert's rank and back by all-to-all over the group
// (workloads/expert_exchange.h). The experts are left out of the data-parallel mode (its
// reducer or shards take the rest): an expert's gradient, which already sums the
// contributions of every token of its group, is summed over the N/K ranks that hold the
// same expert (the replica group, ranks with the same place in their group) and divided by
// N, so it is exactly the gradient ddp-N averages. torchtitan's semantics: EP borrows its
// ranks from data parallel.
// A rank frees the storage of the experts it does not hold (their shapes stay, as fsdp's
// unit members do), so it holds 1/K of the experts' parameters, gradients and Adam state.
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "harness/parallel/comm_stats.h"
#include "harness/parallel/expert_replica_shards.h"
#include "harness/parallel/gradient_sync.h"
#include "harness/parallel/parameter_digest.h"
#include "harness/parallel/process_group.h"
#include "workloads/model.h"

namespace gpubench {

struct ExpertParallelOptions {
  int rank = 0;        // in the whole world
  int world_size = 1;  // N
  int group_size = 1;  // K
  std::chrono::milliseconds timeout{60000};
  std::function<void()> on_failure;  // lets the owner of the process groups abandon them
  // fsdp-N with N > K: the held experts sharded over their replicas (expert_replica_shards.h),
  // their units on `device` (NCCL: gathered in place).
  bool shard_over_replicas = false;
  torch::Device device = torch::kCPU;
  bool in_place_gather = false;
};

class ExpertParallel {
 public:
  // `experts_group`: this rank's group of K; `replicas`: the N/K ranks holding this rank's
  // experts (null when N == K). Every rank's model must hold rank 0's values (broadcast).
  // Throws std::invalid_argument for a model without experts or experts that do not split.
  ExpertParallel(Model& model, CollectiveGroup& experts_group, CollectiveGroup* replicas, ExpertParallelOptions options,
                 const CommRecorder& recorder);
  ~ExpertParallel();
  ExpertParallel(const ExpertParallel&) = delete;
  ExpertParallel& operator=(const ExpertParallel&) = delete;

  // Every expert's parameters, held here or not: what the data-parallel mode leaves out.
  const std::vector<torch::Tensor>& all_expert_parameters() const { return all_; }
  // The experts this rank holds and trains.
  const std::vector<torch::Tensor>& local_parameters() const { return local_; }
  // What its optimizer steps for them besides the rest: the held experts, or their shards
  // over the replicas.
  std::vector<torch::Tensor> optimizer_parameters() const;
  // A collective (of the replicas, when the experts are sharded over them): each held
  // parameter's whole value of an optimizer state (`state_of` an optimizer parameter:
  // undefined for none), in local_parameters()' order.
  std::vector<torch::Tensor> held_values(const std::function<torch::Tensor(const torch::Tensor&)>& state_of);
  // A micro-batch's backward begins (`accumulated`: an earlier one of the step ran) and ends.
  // Unsharded, after the last one each held expert's gradient is summed over the replica
  // group and divided by N (an expert that got no token here counts as zero); sharded over
  // the replicas, every backward reduce-scatters each layer's into its shard.
  void begin_backward(bool accumulated);
  void finish_backward(bool last_micro_batch);
  // A collective of the group: every expert's parameters whole on every rank again (each
  // broadcast by the rank that holds it), hashed into `digest` in layer and expert order.
  // The model then runs as a plain model's.
  void gather_experts(ParameterDigest* digest = nullptr);
  // A collective of the group: `values` (one a parameter of all_expert_parameters(), in its
  // order and shape) become, on every rank, the values of the rank that holds that expert.
  void share_from_holders(const std::vector<torch::Tensor>& values);
  // Marks the start of a step (all-to-all traffic is counted per measured step).
  void begin_step();
  // {group_size, experts_per_rank, groups, replica_group_size, all_to_all: {calls_per_step,
  // token_bytes_per_step, count_bytes_per_step, ms_per_step}, gradient_reduction}.
  nlohmann::json describe() const;

 private:
  void reduce_gradients();
  class GroupExchange;
  std::shared_ptr<GroupExchange> exchange_;
  // The model's, copied: it holds its sparse layers, so it outlives the Model it came from.
  std::function<void(std::shared_ptr<ExpertExchange>)> set_exchange_;
  CollectiveGroup& group_;
  CollectiveGroup* replicas_;
  ExpertParallelOptions options_;
  std::int64_t experts_ = 0;  // a sparse layer's
  int place_ = 0;             // this rank's place in its group: rank % K
  std::vector<torch::Tensor> all_, local_;
  std::vector<int> holder_;  // per all_ entry: the place in the group of the rank holding it
  std::unique_ptr<ExpertReplicaShards> shards_;  // fsdp-N, N > K
};

// This rank's two groups under ep-K: its group of K consecutive ranks (the experts' exchange)
// and, when N > K, the N/K ranks at its place in every group (the replicas of its experts),
// each joined under its own key prefix of `store` (`scope`: the config's). Throws as joining
// the world's group does.
struct ExpertGroups {
  c10::intrusive_ptr<CollectiveGroup> experts, replicas;
};
ExpertGroups join_expert_groups(const GroupRequest& world, const c10::intrusive_ptr<c10d::Store>& store,
                                const std::string& scope, int group_size);

// The data-parallel mode's sync with the experts' own reduction after it: what the Trainer
// sees under ep-K. With zero2 and fsdp, which announce every micro-batch, the experts are
// reduced after the last one only (their .grad accumulates like DDP's).
class ExpertParallelSync final : public GradientSync {
 public:
  ExpertParallelSync(GradientSync& inner, ExpertParallel& experts, int accumulate)
      : inner_(inner), experts_(experts), accumulate_(accumulate) {}
  void begin_forward(bool first) override;
  void begin_backward(bool accumulated) override;
  void finish_backward() override;
  bool reduces_every_micro_batch() const override { return inner_.reduces_every_micro_batch(); }
  void after_optimizer_step() override { inner_.after_optimizer_step(); }

 private:
  GradientSync& inner_;
  ExpertParallel& experts_;
  int accumulate_ = 1;
  int micro_ = 0;  // micro-batches begun this step
};

}  // namespace gpubench
