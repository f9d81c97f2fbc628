#pragma once
// fsdp-N/ep-K with N > K (docs/sharding.md "Expert parallel"): the experts a rank holds are
// held by the N/K ranks at its place in every group too (its replica group), so fsdp shards
// them over those replicas, one unit a sparse layer (UnitShard), as torchtitan applies
// FSDP to the experts over its dp_shard_mod_ep mesh: a rank keeps 1/(N/K) of its experts'
// parameters, gradients and Adam moments. A layer's held experts are gathered whole before
// they compute, freed after (the exchange's before_experts/after_experts), gathered again
// before their backward by a hook on their output, and their gradients reduce-scattered
// (divided by N: ddp-N's average) and freed as soon as backward has made them all, every
// micro-batch, in reverse layer order on every rank. The experts' peak is then one layer's
// whole parameters, gradients and reduce input beside the shards' 16/N bytes a parameter,
// against 20/K unsharded.
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "harness/parallel/process_group.h"
#include "harness/parallel/unit_shard.h"

namespace gpubench {

struct ReplicaShardOptions {
  int replica_rank = 0;  // this rank's place in its replica group
  int replicas = 1;      // N/K
  int world_size = 1;    // N: what the gradients are divided by
  torch::Device device = torch::kCPU;
  bool in_place_gather = false;  // NCCL gathers from a slice of its output
  std::chrono::milliseconds timeout{60000};
  // Called with what failed and why before the error is thrown (the owner abandons its groups).
  std::function<void()> on_failure;
  int rank = 0;  // in the whole world, for messages
};

class ExpertReplicaShards {
 public:
  // `held_per_layer`: the parameters of the experts this rank holds, a list a sparse layer;
  // every replica's must hold the same values. From here on they view their layer's unit,
  // sharded until they first compute.
  ExpertReplicaShards(const std::vector<std::vector<torch::Tensor>>& held_per_layer, CollectiveGroup& replicas,
                      ReplicaShardOptions options);
  ~ExpertReplicaShards();
  ExpertReplicaShards(const ExpertReplicaShards&) = delete;
  ExpertReplicaShards& operator=(const ExpertReplicaShards&) = delete;

  // What the optimizer steps: each layer's shard.
  std::vector<torch::Tensor> optimizer_parameters() const;
  // Collectives of the replicas, on every rank in the same order (the model's).
  // Layer `layer`'s experts whole (before they compute), then freed after, with a hook on
  // their output that gathers them again before their backward.
  void before_experts(std::size_t layer);
  torch::Tensor after_experts(std::size_t layer, const torch::Tensor& computed);
  // A micro-batch's backward begins (`accumulated`: an earlier one of the step ran): each
  // layer's gradients are reduce-scattered into its shard's (added to it when accumulated).
  void begin_backward(bool accumulated);
  // After a backward: what no hook reduced yet (a layer without gradients: zeros) is.
  void finish_backward();
  // Every layer's held experts whole (the end of the run's gather of the whole model).
  void gather_all();
  // A collective of the replicas: `per_unit` (one tensor a layer, shaped as its shard: an
  // Adam moment; undefined: zeros) gathered whole, as one tensor a held parameter in
  // `held_per_layer`'s order, shaped as that parameter.
  std::vector<torch::Tensor> gather_values(const std::vector<torch::Tensor>& per_unit);
  // {replicas, shard_numel_per_rank, units, how}
  nlohmann::json describe() const;

 private:
  void wait(c10d::Work& work, const char* what);
  void ensure_gathered(std::size_t unit);
  void on_gradient(std::size_t unit, std::size_t slot);
  void reduce_ready();  // the units whose turn came, in reverse layer order (mutex_ held)
  void reduce(std::size_t unit);

  CollectiveGroup& replicas_;
  ReplicaShardOptions options_;
  std::vector<UnitShard> units_;
  std::vector<torch::Tensor> members_;  // every unit's members, for their hooks
  std::vector<bool> ready_;
  std::size_t reduced_ = 0;  // units reduced this backward (from the last layer down)
  bool armed_ = false, accumulated_ = false;
  std::mutex mutex_;  // autograd may run hooks on its own threads
};

}  // namespace gpubench
