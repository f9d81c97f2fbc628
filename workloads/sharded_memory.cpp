#include "workloads/sharded_memory.h"

#include <algorithm>

namespace gpubench {

namespace {

constexpr double kFp32 = 4;
constexpr double kStagingBytes = static_cast<double>(Config::kHostStagingBytes);

// ep-K: what a rank holds of the experts the mode's formula left out.
void add_experts(MemoryEstimate& rank, const Config& config, const UnitSizes& units) {
  const double held = static_cast<double>(units.experts) / config.expert_parallel;
  const double replicas = static_cast<double>(config.world_size) / config.expert_parallel;
  if (config.parallel == ParallelMode::Fsdp && replicas > 1) {
    // Sharded over the replicas (ExpertReplicaShards): the shards' parameters, gradients and
    // moments; one sparse layer's held experts gathered whole at a time; and in backward that
    // layer's whole gradients and its flat reduce-scatter input (on a CPU, Gloo's flat copy of
    // it too). A layer is the mean over every layer: exact where all are sparse.
    const double layer = kFp32 * held / static_cast<double>(std::max<std::int64_t>(units.layers, 1));
    rank.states += 16 * held / replicas;
    rank.gathered += layer;
    rank.buffers += layer * (config.device == DeviceKind::Cpu ? 3 : 2) + units.dispatch_bytes;
  } else {
    rank.states += 16 * held;
    rank.buffers += kFp32 * held + units.dispatch_bytes;  // the replicas' all-reduce's flat copy
  }
  if (config.sharded()) rank.checkpoint += 8 * static_cast<double>(units.experts);
  // Built whole, then freed down to its share (ExpertParallel's constructor): on the host
  // for a GPU rank, whose device then takes its share tensor by tensor.
  const double built = config.model_built_on_host() ? kStagingBytes : kFp32 * static_cast<double>(units.parameters);
  rank.startup = std::max(rank.startup, built);
}

}  // namespace

MemoryEstimate per_rank_estimate(const MemoryEstimate& single, const Config& config, const UnitSizes& all_units) {
  if (!config.multi_rank()) return single;
  MemoryEstimate rank = single;
  // Under ep-K the mode's formula counts what is not a routed expert (add_experts the rest).
  const bool split_experts = config.expert_parallel > 1 && all_units.experts > 0;
  UnitSizes units = all_units;
  if (split_experts) {
    units.parameters -= all_units.experts;
    // largest_unit is a layer's mean share; without the experts, each layer holds Ψ_E/layers less.
    if (all_units.layers > 0) units.largest_unit = std::max<std::int64_t>(0, units.largest_unit - all_units.experts / all_units.layers);
  }
  const double psi = static_cast<double>(units.parameters), n = config.world_size;
  const double largest = kFp32 * static_cast<double>(units.largest_unit), root = kFp32 * static_cast<double>(units.root);
  const double unit = std::max(largest, root);
  // Three reduce-scatter inputs at once: two in flight and the third, allocated before the
  // oldest is waited (ShardedDataParallel's kReducesInFlight + 1). They are consecutive in
  // the reduce order (the units in reverse, then the root): at most two layers and the larger
  // of a layer and the root.
  const double inputs = 2 * largest + unit;
  // zero2 and fsdp drop the whole gradients as they reduce, but hold the root's from its first
  // gradient (the head's, early in backward) to its reduce at the end, and a unit's whole
  // gradients while they are copied into its input.
  const double whole_gradients = root + largest;
  // With accK each later micro-batch's reduce-scatter writes an output beside the shard's
  // accumulated gradient, added once it ends: one a reduction in flight (unit/N each). Outside
  // accK the output becomes the shard's gradient, counted in the states.
  const bool accumulates = config.accumulate > 1 && config.parallel != ParallelMode::Zero1;
  const double outputs = accumulates ? inputs / n : 0;
  switch (config.parallel) {
    case ParallelMode::Ddp:
      rank.states = 16 * psi;  // Ψ less the experts under ep-K (add_experts counts a rank's share)
      rank.buffers = kFp32 * psi;
      break;
    case ParallelMode::Zero1:
      rank.states = kFp32 * psi * 2 + (8 + 4) * psi / n;
      rank.buffers = inputs;
      break;
    case ParallelMode::Zero2:
      rank.states = kFp32 * psi + (4 + 8) * psi / n;
      rank.buffers = inputs + whole_gradients + outputs;
      break;
    case ParallelMode::Fsdp:
      rank.states = 16 * psi / n;
      rank.gathered = root + 2 * largest;
      rank.buffers = inputs + whole_gradients + outputs;
      break;
    default:
      break;
  }
  // Before training each unit in turn is flattened (its whole copy) and sharded (its 1/N),
  // with the whole unsharded model beside it on the device, or, built on the host (a GPU
  // rank of fsdp-N), there, while the device holds the unit or a broadcast's staged piece.
  if (config.sharded())
    rank.startup =
        config.model_built_on_host() ? std::max(unit * (1 + 1 / n), kStagingBytes) : kFp32 * psi + unit * (1 + 1 / n);
  // Built on the host, the whole fp32 model is there while the rank starts (experts included).
  if (config.model_built_on_host()) rank.host_model = kFp32 * static_cast<double>(all_units.parameters);
  // On a CPU, Gloo's reduce-scatter all-reduces a flat copy of its input (c10d in torch
  // 2.11 has no reduce-scatter of its own there): one more whole unit (measured: a 56M
  // Llama's fsdp-2 and zero2-2 ranks held 1.01-1.05x of the estimate without it).
  if (config.sharded() && config.device == DeviceKind::Cpu) rank.buffers += unit;
  // The round trip gathers the whole state to rank 0 first: Adam's two moments (8 bytes a
  // parameter), and fsdp's whole parameters (4), beside the second model and optimizer.
  if (config.sharded()) rank.checkpoint += (config.parallel == ParallelMode::Fsdp ? 12 : 8) * psi;
  if (split_experts) add_experts(rank, config, all_units);
  return rank;
}

}  // namespace gpubench
