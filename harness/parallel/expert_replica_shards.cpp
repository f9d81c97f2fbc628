#include "harness/parallel/expert_replica_shards.h"

#include <stdexcept>

#include "harness/parallel/arrival_hook.h"
#include "harness/parallel/shard_layout.h"

namespace gpubench {

ExpertReplicaShards::ExpertReplicaShards(const std::vector<std::vector<torch::Tensor>>& held_per_layer,
                                         CollectiveGroup& replicas, ReplicaShardOptions options)
    : replicas_(replicas), options_(std::move(options)) {
  std::vector<torch::Tensor> parameters;
  std::vector<std::vector<std::size_t>> members;
  for (const auto& layer : held_per_layer) {
    auto& unit = members.emplace_back();
    for (const auto& parameter : layer) {
      unit.push_back(parameters.size());
      parameters.push_back(parameter);
    }
  }
  const ShardLayout layout = plan_shard_layout(parameters, members, options_.replicas);
  units_.reserve(layout.units.size());
  for (std::size_t u = 0; u < layout.units.size(); ++u) {
    const FlatUnit& unit = layout.units[u];
    std::vector<torch::Tensor> unit_members;
    for (const std::size_t member : unit.members) unit_members.push_back(parameters[member]);
    // keep_whole false: fsdp's unit, whose whole buffer is freed between uses. Flattened
    // from where the experts are now (the host, for a GPU rank) into the device's buffer.
    UnitShard& shard = units_.emplace_back(unit, unit_members, options_.device, options_.replica_rank, options_.replicas,
                                           /*keep_whole=*/false, options_.in_place_gather);
    shard.divide_gradients_by(options_.world_size);
    for (std::size_t slot = 0; slot < unit_members.size(); ++slot) {
      set_arrival_hook(unit_members[slot], [this, u, slot] { on_gradient(u, slot); });
      members_.push_back(unit_members[slot]);
    }
  }
  // Left sharded: each layer's experts are gathered when they first compute
  // (before_experts), so a GPU rank never holds every layer's whole at its start.
  ready_.assign(units_.size(), false);
}

ExpertReplicaShards::~ExpertReplicaShards() {
  for (const auto& member : members_) set_arrival_hook(member, nullptr);
}

void ExpertReplicaShards::wait(c10d::Work& work, const char* what) {
  try {
    wait_collective(replicas_, work, options_.timeout);
  } catch (const std::exception& error) {
    if (options_.on_failure) options_.on_failure();
    throw std::runtime_error("rank " + std::to_string(options_.rank) + ": " + what +
                             " the experts' shards over their replicas failed: " + message_of(error));
  }
}

std::vector<torch::Tensor> ExpertReplicaShards::optimizer_parameters() const {
  std::vector<torch::Tensor> shards;
  for (const auto& unit : units_) shards.push_back(unit.shard());
  return shards;
}

void ExpertReplicaShards::ensure_gathered(std::size_t unit) {
  UnitShard& shard = units_.at(unit);
  if (shard.resident()) return;
  shard.launch_gather(replicas_);
  shard.finish_gather([this](c10d::Work& work) { wait(work, "gathering"); });
}

void ExpertReplicaShards::gather_all() {
  for (std::size_t unit = 0; unit < units_.size(); ++unit) ensure_gathered(unit);
}

void ExpertReplicaShards::before_experts(std::size_t layer) { ensure_gathered(layer); }

torch::Tensor ExpertReplicaShards::after_experts(std::size_t layer, const torch::Tensor& computed) {
  if (!torch::GradMode::is_enabled()) return computed;  // no backward will need them: kept as they are
  units_.at(layer).release();
  if (computed.requires_grad())
    computed.register_hook([this, layer](torch::Tensor grad) {
      std::lock_guard<std::mutex> lock(mutex_);
      ensure_gathered(layer);
      return grad;
    });
  return computed;
}

void ExpertReplicaShards::begin_backward(bool accumulated) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& unit : units_) unit.begin_backward();
  std::fill(ready_.begin(), ready_.end(), false);
  reduced_ = 0;
  accumulated_ = accumulated;
  armed_ = true;
}

void ExpertReplicaShards::on_gradient(std::size_t unit, std::size_t slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!armed_ || !units_.at(unit).gradient_arrived(slot)) return;
  ready_[unit] = true;
  reduce_ready();
}

void ExpertReplicaShards::reduce_ready() {
  // From the last layer down, whatever order backward completed them in: every replica then
  // issues its reduce-scatters in one order.
  while (reduced_ < units_.size()) {
    const std::size_t unit = units_.size() - 1 - reduced_;
    if (!ready_[unit]) return;
    reduce(unit);
    ++reduced_;
  }
}

void ExpertReplicaShards::reduce(std::size_t unit) {
  UnitShard& shard = units_[unit];
  shard.launch_reduce(replicas_, /*free_gradients=*/true);
  shard.finish_reduce([this](c10d::Work& work) { wait(work, "reduce-scattering the gradients of"); }, accumulated_);
  shard.release();
}

void ExpertReplicaShards::finish_backward() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!armed_) return;
  std::fill(ready_.begin(), ready_.end(), true);
  reduce_ready();
  armed_ = false;
}

std::vector<torch::Tensor> ExpertReplicaShards::gather_values(const std::vector<torch::Tensor>& per_unit) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> values;
  for (std::size_t u = 0; u < units_.size(); ++u) {
    const UnitShard& unit = units_[u];
    const torch::Tensor mine = per_unit.at(u).defined() ? per_unit[u].contiguous() : torch::zeros_like(unit.shard());
    torch::Tensor whole = torch::empty({unit.layout().padded_numel}, mine.options());
    torch::Tensor input = mine;  // _allgather_base takes non-const references
    wait(*replicas_._allgather_base(whole, input), "gathering the optimizer state of");
    for (std::size_t slot = 0; slot < unit.members(); ++slot) values.push_back(unit.member_view(whole, slot));
  }
  return values;
}

nlohmann::json ExpertReplicaShards::describe() const {
  std::int64_t shard = 0;
  for (const auto& unit : units_) shard += unit.layout().shard_numel;
  return {{"replicas", options_.replicas},
          {"units", units_.size()},
          {"shard_numel_per_rank", shard},
          {"how", "a unit a sparse layer, its held experts' parameters, gradients and Adam moments split over the ranks "
                  "holding the same experts; gathered whole before the layer's experts compute and again before their "
                  "backward, freed after each, gradients reduce-scattered (divided by N) as soon as backward made them "
                  "(FSDP over the replicas, torchtitan's dp_shard_mod_ep)"}};
}

}  // namespace gpubench
