#pragma once
// How the sharded modes (zero1-N, zero2-N, fsdp-N) lay a model's parameters out: each unit
// of sharding (Model::units, then the root unit: what no unit holds) end to end in one
// flat buffer, split in N equal shards, rank r owning elements [r * shard, (r + 1) * shard)
// -- DeepSpeed's flat partitions, FSDP's FlatParameter. Each shard is rounded up to a
// multiple of 16 bytes (kShardAlignBytes), as FSDP2 pads: every shard then starts where
// foreach/fused Adam's vectorised path and NCCL's copies want it (a slice of the whole
// buffer at a 16-byte multiple; unaligned, they take their slow paths). Padding is never
// dropped nor stepped into a parameter: its elements are zeros that no parameter views.
// Pure arithmetic: no tensor is allocated here.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

namespace gpubench {

// Every shard's size is a multiple of this many bytes (an element's size, if larger).
constexpr std::int64_t kShardAlignBytes = 16;

struct FlatUnit {
  std::string name;                    // "unit 3" (the model's 4th unit) or "root"
  std::vector<std::size_t> members;    // indices into the parameter list, in module order
  std::vector<std::int64_t> offsets;   // each member's first element in the flat buffer
  std::int64_t numel = 0;              // the members' elements
  std::int64_t padded_numel = 0;       // shard_numel x world size: numel and the padding
  std::int64_t shard_numel = 0;        // what each rank owns: numel / world size, rounded up to 16 bytes
  std::int64_t element_bytes = 4;      // the members' element size (one dtype a unit)
};

struct ShardLayout {
  int world_size = 1;
  std::vector<FlatUnit> units;   // the model's units in forward order, then the root (if it has members)
  bool has_root = false;
  std::int64_t numel() const;          // every sharded parameter's elements
  std::int64_t padded_numel() const;   // with the padding
  std::int64_t shard_numel() const;    // what one rank owns, over all units
  // The unit with the most elements: what fsdp holds gathered at most (two while it prefetches).
  std::int64_t largest_unit_numel() const;
  // {world_size, units, unit_numel[], shard_numel[], padding_numel, largest_unit_numel, root}
  nlohmann::json to_json() const;
};

// Which parameters each module of `units` holds, as indices into `parameters` (the model's
// trainable parameters, in module order): one list a unit, in the units' order. A
// parameter no unit holds is left for the root unit. Throws std::invalid_argument when a
// parameter is in two units (units must not overlap) or a unit holds none.
std::vector<std::vector<std::size_t>> unit_members(const std::vector<torch::Tensor>& parameters,
                                                   const std::vector<std::shared_ptr<torch::nn::Module>>& units);

// The layout of `parameters` in `members`' units (unit_members) plus the root unit of the
// parameters no unit holds, over `world_size` ranks. Throws std::invalid_argument for a
// world size below 1 or a unit whose members differ in dtype or device.
ShardLayout plan_shard_layout(const std::vector<torch::Tensor>& parameters,
                              const std::vector<std::vector<std::size_t>>& members, int world_size);

}  // namespace gpubench
