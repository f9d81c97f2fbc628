#include "harness/parallel/shard_layout.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace gpubench {

std::int64_t ShardLayout::numel() const {
  std::int64_t total = 0;
  for (const auto& unit : units) total += unit.numel;
  return total;
}

std::int64_t ShardLayout::padded_numel() const {
  std::int64_t total = 0;
  for (const auto& unit : units) total += unit.padded_numel;
  return total;
}

std::int64_t ShardLayout::shard_numel() const {
  std::int64_t total = 0;
  for (const auto& unit : units) total += unit.shard_numel;
  return total;
}

std::int64_t ShardLayout::largest_unit_numel() const {
  std::int64_t largest = 0;
  for (const auto& unit : units) largest = std::max(largest, unit.padded_numel);
  return largest;
}

nlohmann::json ShardLayout::to_json() const {
  nlohmann::json names = nlohmann::json::array(), numels = nlohmann::json::array(), shards = nlohmann::json::array();
  for (const auto& unit : units) {
    names.push_back(unit.name);
    numels.push_back(unit.numel);
    shards.push_back(unit.shard_numel);
  }
  return {{"world_size", world_size},         {"units", units.size()},
          {"unit_names", names},              {"unit_numel", numels},
          {"shard_numel", shards},            {"padding_numel", padded_numel() - numel()},
          {"largest_unit_numel", largest_unit_numel()}, {"root_unit", has_root}};
}

std::vector<std::vector<std::size_t>> unit_members(const std::vector<torch::Tensor>& parameters,
                                                   const std::vector<std::shared_ptr<torch::nn::Module>>& units) {
  std::unordered_map<const c10::TensorImpl*, std::size_t> index_of;
  for (std::size_t i = 0; i < parameters.size(); ++i) index_of.emplace(parameters[i].unsafeGetTensorImpl(), i);
  std::vector<int> owner(parameters.size(), -1);
  std::vector<std::vector<std::size_t>> members(units.size());
  for (std::size_t u = 0; u < units.size(); ++u) {
    for (const auto& parameter : units[u]->parameters()) {
      const auto found = index_of.find(parameter.unsafeGetTensorImpl());
      if (found == index_of.end()) continue;  // frozen: not sharded
      if (owner[found->second] >= 0 && owner[found->second] != static_cast<int>(u))
        throw std::invalid_argument("units of sharding overlap: a parameter is in unit " +
                                    std::to_string(owner[found->second]) + " and unit " + std::to_string(u));
      if (owner[found->second] == static_cast<int>(u)) continue;  // shared inside the unit
      owner[found->second] = static_cast<int>(u);
      members[u].push_back(found->second);
    }
    if (members[u].empty()) throw std::invalid_argument("unit " + std::to_string(u) + " of sharding holds no trainable parameter");
    std::sort(members[u].begin(), members[u].end());
  }
  return members;
}

namespace {

std::int64_t round_up(std::int64_t value, std::int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

FlatUnit flat_unit(std::string name, std::vector<std::size_t> members, const std::vector<torch::Tensor>& parameters,
                   int world_size) {
  FlatUnit unit;
  unit.name = std::move(name);
  unit.members = std::move(members);
  const torch::Tensor& first = parameters[unit.members.front()];
  unit.element_bytes = static_cast<std::int64_t>(first.element_size());
  for (std::size_t member : unit.members) {
    const torch::Tensor& parameter = parameters[member];
    if (parameter.scalar_type() != first.scalar_type() || parameter.device() != first.device())
      throw std::invalid_argument("sharding: " + unit.name + " mixes parameter dtypes or devices (" +
                                  std::string(c10::toString(first.scalar_type())) + " and " +
                                  c10::toString(parameter.scalar_type()) + "); a unit is one flat buffer");
    unit.offsets.push_back(unit.numel);
    unit.numel += parameter.numel();
  }
  const std::int64_t ranks = world_size;
  unit.shard_numel = round_up((unit.numel + ranks - 1) / ranks, kShardAlignBytes / std::min(unit.element_bytes, kShardAlignBytes));
  unit.padded_numel = unit.shard_numel * ranks;
  return unit;
}

}  // namespace

ShardLayout plan_shard_layout(const std::vector<torch::Tensor>& parameters,
                              const std::vector<std::vector<std::size_t>>& members, int world_size) {
  if (world_size < 1) throw std::invalid_argument("sharding: world size " + std::to_string(world_size) + ", expected 1 or more");
  ShardLayout layout;
  layout.world_size = world_size;
  std::vector<bool> taken(parameters.size(), false);
  for (std::size_t u = 0; u < members.size(); ++u) {
    for (std::size_t member : members[u]) taken.at(member) = true;
    layout.units.push_back(flat_unit("unit " + std::to_string(u), members[u], parameters, world_size));
  }
  std::vector<std::size_t> rest;
  for (std::size_t i = 0; i < parameters.size(); ++i)
    if (!taken[i]) rest.push_back(i);
  if (!rest.empty()) {
    layout.units.push_back(flat_unit("root", std::move(rest), parameters, world_size));
    layout.has_root = true;
  }
  return layout;
}

}  // namespace gpubench
